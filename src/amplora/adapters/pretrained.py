"""`model.save_pretrained` of an adapted model, and what `transformers.Trainer` reads back from its files.

`apply` gives the model instance a `save_pretrained` that writes the adapter as a `PeftModel` does
(`adapter_config.json` + `adapter_model.safetensors`) instead of the whole model under amplora's module names,
which no loader understands. `Trainer.save_model()` and every `checkpoint-N/` call it, so the user's code needs no
subclass.

Resume. `Trainer` loads adapter files into a `PeftModel` only; for any other model it reads `model.safetensors`.
So the same call also writes `model.safetensors` holding the adapter's parameters (and any other trainable ones)
under the model's own names: `trainer.train(resume_from_checkpoint=...)` and `load_best_model_at_end` restore them
exactly (PiSSA's rank-r factors too, which the PEFT file holds as a rank-2r delta). A state-dict post-hook keeps
that load from listing every frozen base weight as missing: a state dict without a single base weight is an
adapter's.
"""
from __future__ import annotations

import os
import types
from pathlib import Path

import torch
import torch.nn as nn

from amplora.adapters import io
from amplora.adapters.apply import adapter_config, lora_layers
from amplora.errors import AmploraError

STATE_NAME = "model.safetensors"  # the file Trainer's _load_from_checkpoint / _load_best_model read
_ADAPTER_PARAMS = ("lora_A.weight", "lora_B.weight", "lora_magnitude_vector")


def bind(model: nn.Module) -> None:
    """Give `model` (an instance, not its class) the adapter-saving `save_pretrained` and the load post-hook."""
    model.save_pretrained = types.MethodType(save_pretrained, model)
    model.register_load_state_dict_post_hook(_adapter_only_load)


def unbind(model: nn.Module) -> None:
    """Back to the class's save_pretrained (merge: the model is a plain transformers model again). The post-hook
    stays and does nothing on a model without adapters."""
    model.__dict__.pop("save_pretrained", None)


def adapter_keys(model: nn.Module) -> list[str]:
    """State-dict names of what training changes: every adapter parameter and any other trainable one."""
    names = [f"{path}.{p}" for path, layer in lora_layers(model).items() for p in _ADAPTER_PARAMS
             if p != "lora_magnitude_vector" or layer.dora]
    known = set(names)
    return names + [n for n, p in model.named_parameters() if p.requires_grad and n not in known]


def training_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """adapter_keys' tensors, fp32 on CPU: what a Trainer checkpoint restores into the model."""
    params = dict(model.named_parameters())
    return {k: params[k].detach().float().cpu().contiguous() for k in adapter_keys(model)}


def save_pretrained(model: nn.Module, save_directory: str | os.PathLike, is_main_process: bool = True,
                    state_dict: dict | None = None, push_to_hub: bool = False, **_ignored) -> None:
    """The adapter in PEFT's format plus `model.safetensors` (module docstring), written into `save_directory`
    without touching its other files. The weights are read from the model: `state_dict` and the sharding and
    serialization options of the transformers method do not apply to an adapter."""
    if push_to_hub:
        raise AmploraError("save_pretrained(push_to_hub=True) is not supported for an amplora model: save, then "
                           "upload the directory (huggingface_hub.upload_folder)")
    state = io.checked_state(model, training_state(model))
    if is_main_process:
        io.save_adapter_into(model, Path(save_directory), extra={STATE_NAME: state})


def _adapter_only_load(model: nn.Module, incompatible) -> None:
    """Loading a state dict that holds no base weight at all (an adapter's, as Trainer does on resume): the
    frozen base is not missing, it is what the model already holds."""
    if adapter_config(model) is None or not incompatible.missing_keys:
        return
    adapter = set(adapter_keys(model))
    missing = set(incompatible.missing_keys)
    base = [n for n, _ in model.named_parameters() if n not in adapter]
    if base and all(n in missing for n in base):  # then its buffers (NF4 quant states...) are not missing either
        incompatible.missing_keys[:] = [k for k in incompatible.missing_keys if k in adapter]
