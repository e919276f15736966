"""amplora: LoRA / DoRA / QLoRA fine-tuning where mixed precision simply works, plus a precision doctor.

    model = amplora.apply(model, method="dora", precision="bf16-true")   # no autocast blocks in user code
    amplora.save_adapter(model, "out/adapter")                            # PEFT-loadable
"""
__version__ = "0.1.0"

import os  # noqa: E402

# Before torch loads its OpenMP runtime: idle threads sleep instead of spinning. On a shared CPU, spinning
# threads slowed training steps 5-10x (4 s -> 30-47 s measured); on a quiet machine it costs nothing.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from amplora.adapters import (  # noqa: E402
    AdapterConfig, LoraLinear, adapter_config, adapter_state_dict, apply, load_adapter, lora_layers, merge,
    policy_of, precision_scope, read_adapter, save_adapter, trainable_parameters, unmerge,
)
from amplora.errors import AmploraError  # noqa: E402
from amplora.precision import PRESETS, Precision, PrecisionError, resolve  # noqa: E402

__all__ = [
    "AdapterConfig", "AmploraError", "LoraLinear", "PRESETS", "Precision", "PrecisionError", "adapter_config",
    "adapter_state_dict", "apply", "load_adapter", "lora_layers", "merge", "policy_of", "precision_scope",
    "read_adapter", "resolve", "save_adapter", "trainable_parameters", "unmerge",
]
