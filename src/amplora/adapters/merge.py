"""Fold adapters into the base weights: fp32 math, one cast to the storage dtype."""
from __future__ import annotations

import torch
import torch.nn as nn

from amplora.adapters import boundary, pretrained, quant, targets as targets_mod
from amplora.adapters.fast import lean
from amplora.adapters.apply import lora_layers
from amplora.errors import AmploraError


def merge(model: nn.Module, keep_adapters: bool = False) -> nn.Module:
    """Return `model` with every adapter folded in.

    keep_adapters=False (default): a plain transformers model — LoraLinear layers become nn.Linear (or Conv1D where
    the model had one), NF4 layers are dequantized (never re-quantized), the precision hooks are removed.
    keep_adapters=True: the merged weight replaces the base weight inside each adapter layer, which then skips its
    adapter path until `unmerge`. Only for an fp32-stored, non-quantized base, where unmerge is exact to rounding.
    """
    layers = lora_layers(model)
    if not layers:
        raise AmploraError("model has no amplora adapters to merge")
    with _fp32_math(layers):
        return _merge(model, layers, keep_adapters)


def _fp32_math(layers: dict):
    """Autocast off for the fold: inside a caller's region B·A would run in its half-precision dtype, and unmerge
    would no longer undo merge."""
    return lean.no_autocast(next(iter(layers.values())).lora_B.weight)


def _merge(model: nn.Module, layers: dict, keep_adapters: bool) -> nn.Module:
    policy = boundary.policy_of(model)
    storage = policy.storage if policy is not None else torch.float32
    if keep_adapters:
        _merge_in_place(layers, storage)
        return model
    for name, layer in layers.items():
        base = layer.base_layer
        w = layer.merged_weight() if not layer.merged else quant.dense_weight(base)
        targets_mod.set_module(model, name, quant.plain_layer(base, w, base.bias, storage))
    for name, m in targets_mod.candidate_linears(model).items():  # untargeted NF4 layers too
        if quant.is_nf4(m):
            targets_mod.set_module(model, name, quant.dequantize(m, storage))
    for p in model.parameters():  # fp32 masters PEFT's options trained (modules_to_save, biases): one storage dtype
        if p.is_floating_point() and p.dtype != storage:
            p.data = p.data.to(storage)
    _drop_quantization_flags(model)
    lean.restore(model)
    boundary.remove(model)
    pretrained.unbind(model)  # save_pretrained writes the whole merged model again
    model.__dict__.pop("_amplora_config", None)
    return model


def _merge_in_place(layers: dict, storage: torch.dtype) -> None:
    for name, layer in layers.items():
        if quant.is_nf4(layer.base_layer):
            raise AmploraError(f"{name}: keep_adapters merge of an NF4 base would re-quantize it (not exact); "
                               "use merge(model) for a dequantized plain model")
        if storage != torch.float32:
            raise AmploraError(f"{name}: keep_adapters merge needs an fp32-stored base to unmerge exactly; "
                               f"this one is {storage}; use merge(model) instead")
    for layer in layers.values():
        if layer.merged:
            continue
        w = quant.dense_weight(layer.base_layer)
        delta = layer.scaling * (layer.lora_B.weight.detach() @ layer.lora_A.weight.detach())
        # DoRA: remember ‖W + s·BA‖ so unmerge can undo the magnitude scaling exactly
        layer._merge_norm = (w + delta).norm(dim=1).clamp_min(1e-6) if layer.dora else None
        quant.copy_weight_(layer.base_layer, layer.merged_weight())
        layer.merged = True


def unmerge(model: nn.Module) -> nn.Module:
    """Undo `merge(model, keep_adapters=True)`: W = W'/g - s·BA (DoRA) or W' - s·BA (LoRA), in fp32."""
    layers = lora_layers(model)
    if not layers:
        raise AmploraError("model has no amplora adapters to unmerge")
    with _fp32_math(layers):
        _unmerge(layers)
    return model


def _unmerge(layers: dict) -> None:
    for layer in layers.values():
        if not layer.merged:
            continue
        w = quant.dense_weight(layer.base_layer)
        if layer.dora:
            w = w * (layer._merge_norm / layer.lora_magnitude_vector.detach().float()).unsqueeze(1)
        w = w - layer.scaling * (layer.lora_B.weight.detach() @ layer.lora_A.weight.detach())
        quant.copy_weight_(layer.base_layer, w)
        layer.merged = False
        layer.refresh_weight_norm()


def _drop_quantization_flags(model: nn.Module) -> None:
    """A model loaded with a BitsAndBytesConfig carries flags that make transformers treat it as quantized."""
    config = getattr(model, "config", None)
    if config is not None and hasattr(config, "quantization_config"):
        del config.quantization_config
    for attr in ("is_quantized", "is_loaded_in_4bit", "quantization_method", "hf_quantizer"):
        if attr in model.__dict__:
            model.__dict__.pop(attr)
