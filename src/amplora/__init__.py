"""amplora: LoRA / DoRA / QLoRA fine-tuning where mixed precision simply works, plus a precision doctor.

    model = amplora.apply(model, method="dora", precision="bf16-true")   # no autocast blocks in user code
    amplora.save_adapter(model, "out/adapter")                            # PEFT-loadable

Importing amplora changes nothing in the process (no environment variables, no global hooks) and loads torch only
when a name below is first used.
"""
from amplora.errors import AmploraError

__version__ = "0.1.0"

_FROM = {
    "amplora.adapters": ("AdapterConfig", "LoraLinear", "TrainableSummary", "adapter_config", "adapter_state_dict",
                         "apply", "disable_adapters", "load_adapter", "lora_layers", "merge", "policy_of",
                         "precision_scope", "read_adapter", "save_adapter", "track_optimizer", "trainable_parameters",
                         "trainable_summary", "unmerge"),
    "amplora.precision": ("PRESETS", "Precision", "PrecisionError", "resolve"),
}
_WHERE = {name: module for module, names in _FROM.items() for name in names}

__all__ = sorted(["AmploraError", *_WHERE])


def __getattr__(name: str):
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'amplora' has no attribute {name!r}")
