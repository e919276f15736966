"""Every field of PEFT's LoraConfig (PEFT 0.21), and what amplora does with it: honored, refused by name when set
(loading would give another model than PEFT's), or ignored because it does not change the weights or the forward.
docs/peft-compat.md is this table for users; tests/adapters/test_peft_config.py checks it against PEFT's fields.
"""
from __future__ import annotations

import math

# read by amplora: they decide the adapted modules, their ranks, scaling, extra trained tensors or the forward
HONORED = (
    "peft_type", "task_type", "base_model_name_or_path", "r", "lora_alpha", "lora_dropout", "use_dora", "use_rslora",
    "target_modules", "exclude_modules", "layers_to_transform", "layers_pattern", "rank_pattern", "alpha_pattern",
    "modules_to_save", "bias", "init_lora_weights",
    "fan_in_fan_out",  # the layout flag of GPT-2-style Conv1D layers: each module's type decides, as in PEFT
)

# without effect on the weights or the forward: why
IGNORED = {
    "inference_mode": "PEFT freezes a loaded adapter with it; load_adapter(trainable=...) decides in amplora",
    "revision": "the base model's Hub revision: the caller chooses the base model",
    "auto_mapping": "PEFT's class lookup for models without a task_type",
    "peft_version": "the PEFT version that wrote the file",
    "runtime_config": "PEFT's run-time options, never saved",
    "megatron_core": "the Megatron module name, read only with megatron_config (refused)",
    "qalora_group_size": "read only with use_qalora (refused)",
    "eva_config": "initialization data for init_lora_weights='eva'; the trained weights are in the file",
    "corda_config": "initialization data for init_lora_weights='corda' (refused there)",
    "loftq_config": "initialization data for init_lora_weights='loftq' (refused there)",
    "lora_ga_config": "initialization data for init_lora_weights='lora_ga' (refused there)",
}

# refused when set to anything but their default (None, false, empty): what they are
REFUSED = {
    "layer_replication": "layer stacking (repeated decoder layers)",
    "lora_bias": "a trainable bias on lora_B",
    "use_qalora": "QALoRA (GPTQ bases)",
    "target_parameters": "adapters on bare nn.Parameters (MoE experts)",
    "trainable_token_indices": "trainable embedding rows",
    "megatron_config": "Megatron parallel layers",
    "velora_config": "the VeLoRA variant",
    "alora_invocation_tokens": "the Activated LoRA variant",
    "monteclora_config": "the MonteCLoRA variant",
    "use_bdlora": "the block-diagonal LoRA variant",
    "arrow_config": "Arrow routing",
    "kasa_config": "the KaSA variant",
    "ensure_weight_tying": "adapters tied across tied embeddings",
}

BIAS = ("none", "lora_only", "all")
# init_lora_weights values a loaded adapter may carry: the base weights are untouched, so the weights in the file are
# the whole adapter ("pissa" changes the base weights; amplora reproduces that exactly: the same full SVD)
LOADABLE_INITS = (True, False, "gaussian", "orthogonal", "eva", "pissa")
# what the others do that amplora cannot reproduce exactly
UNLOADABLE_INITS = {
    "olora": "OLoRA changes the base weights (QR of W)",
    "pissa_niter_": "fast-SVD PiSSA: a randomized SVD decides the base weights' residual",
    "corda": "CorDA changes the base weights from activation statistics",
    "loftq": "LoftQ quantizes and changes the base weights",
    "lora_ga": "LoRA-GA changes the base weights from gradient statistics",
    "mica": "MiCA is a LoRA variant (frozen B)",
}
# apply(init=...) -> what the saved config says (PiSSA is saved as the equivalent plain-LoRA delta)
INIT_TO_PEFT = {"default": True, "gaussian": "gaussian", "random": False, "pissa": True}


def is_default(value) -> bool:
    """Unset, as PEFT writes an unset optional field: null, false or empty."""
    return value is None or value is False or (isinstance(value, (dict, list, str)) and len(value) == 0)


def refused_init(value) -> str | None:
    """Why amplora cannot load an adapter made with init_lora_weights=`value`, or None if it can."""
    if any(value is v or (isinstance(v, str) and value == v) for v in LOADABLE_INITS):
        return None
    if isinstance(value, str):
        for prefix, why in UNLOADABLE_INITS.items():
            if value.lower().startswith(prefix):
                return why
    return "not an initialization amplora knows"


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v) -> bool:
    """A finite JSON number (an integer too large for a float is not)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _strings(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


# field -> (test of a set value, what it must be); None passes for each (PEFT writes null when unset)
SHAPES = {
    "rank_pattern": (lambda v: isinstance(v, dict) and all(_int(x) and x > 0 for x in v.values()),
                     "an object mapping module patterns to positive integers"),
    "alpha_pattern": (lambda v: isinstance(v, dict) and all(_number(x) and x > 0 for x in v.values()),
                      "an object mapping module patterns to positive numbers"),
    "exclude_modules": (lambda v: isinstance(v, str) or _strings(v), "a string or a list of strings"),
    "layers_to_transform": (lambda v: (_int(v) and v >= 0) or (isinstance(v, list) and all(_int(x) and x >= 0
                                                                                           for x in v)),
                            "a layer index or a list of layer indices"),
    "layers_pattern": (lambda v: isinstance(v, str) or _strings(v), "a string or a list of strings"),
    "modules_to_save": (_strings, "a list of module names"),
    "bias": (lambda v: v in BIAS, "one of 'none', 'lora_only', 'all'"),
}


def check_shapes(values: dict, bad) -> None:
    """Call bad(field, what it must be) for the first PEFT option in `values` of the wrong type or value."""
    for key, (ok, want) in SHAPES.items():
        if values.get(key) is not None and not ok(values[key]):
            bad(key, want)
    if values.get("layers_pattern") and values.get("layers_to_transform") is None:
        bad("layers_pattern", "used with layers_to_transform (it names where the layer index is)")
