"""Adapters: LoRA, DoRA and an NF4-quantized base (QLoRA, QDoRA) under a precision policy."""
from amplora.adapters.apply import AdapterConfig, adapter_config, apply, lora_layers, trainable_parameters
from amplora.adapters.boundary import policy_of, precision_scope
from amplora.adapters.fast import track_optimizer
from amplora.adapters.io import adapter_state_dict, load_adapter, read_adapter, save_adapter
from amplora.adapters.layers import LoraLinear
from amplora.adapters.merge import merge, unmerge
from amplora.adapters.summary import TrainableSummary, trainable_summary
from amplora.adapters.toggle import disable_adapters

__all__ = [
    "AdapterConfig", "LoraLinear", "TrainableSummary", "adapter_config", "adapter_state_dict", "apply",
    "disable_adapters", "load_adapter", "lora_layers", "merge", "policy_of", "precision_scope", "read_adapter",
    "save_adapter", "track_optimizer", "trainable_parameters", "trainable_summary", "unmerge",
]
