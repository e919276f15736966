"""The frozen base weight, plain or bitsandbytes NF4 (QLoRA): quantize, dequantize, multiply.

bitsandbytes is imported lazily so that plain LoRA never pays for it.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


def _bnb():
    import bitsandbytes as bnb  # lazy: prints a CPU-backend note on import

    return bnb


def _param_of(layer: nn.Module, name: str) -> torch.Tensor | None:
    """layer.<name>, read from the module's parameter dict where it is there: the adapter node reads the base's
    weight and bias for every layer in every forward and backward, and nn.Module.__getattr__ is a Python call per
    lookup."""
    params = layer._parameters
    return params[name] if name in params else getattr(layer, name, None)


def weight_of(layer: nn.Module) -> torch.Tensor | None:
    return _param_of(layer, "weight")


def bias_of(layer: nn.Module) -> torch.Tensor | None:
    return _param_of(layer, "bias")


def is_nf4(layer: nn.Module) -> bool:
    return is_nf4_weight(weight_of(layer))


def is_nf4_weight(weight: torch.Tensor | None) -> bool:
    return type(weight).__name__ == "Params4bit"


def weight_device(layer: nn.Module) -> torch.device:
    return layer.weight.device


def dense_weight(layer: nn.Module) -> torch.Tensor:
    """The layer's weight as a detached fp32 tensor (dequantized for NF4). A fresh W-sized temporary."""
    w = layer.weight
    if is_nf4(layer):
        bnb = _bnb()
        return bnb.functional.dequantize_4bit(w.data, w.quant_state).float()
    return w.detach().float()


def matmul_no_bias(x: torch.Tensor, layer: nn.Module) -> torch.Tensor:
    """x @ Wᵀ in x's dtype, without the bias and without a dense copy of an NF4 W."""
    w = weight_of(layer)
    if is_nf4_weight(w):
        return _bnb().matmul_4bit(x, w.t(), quant_state=w.quant_state)
    return F.linear(x, w if w.dtype == x.dtype else w.to(x.dtype))


def quantize_nf4(layer: nn.Linear, compute_dtype: torch.dtype, storage_dtype: torch.dtype) -> nn.Module:
    """A bitsandbytes NF4 Linear4bit holding `layer`'s weight (the bias stays in the storage dtype)."""
    bnb = _bnb()
    device = layer.weight.device
    q = bnb.nn.Linear4bit(layer.in_features, layer.out_features, bias=layer.bias is not None,
                          compute_dtype=compute_dtype, quant_type="nf4", quant_storage=torch.uint8,
                          device="meta")
    q.weight = bnb.nn.Params4bit(layer.weight.detach().to("cpu", storage_dtype), requires_grad=False,
                                 quant_type="nf4", quant_storage=torch.uint8)
    if layer.bias is not None:
        q.bias = nn.Parameter(layer.bias.detach().to("cpu", storage_dtype), requires_grad=False)
    return q.to(device)  # Params4bit quantizes on its first move to a device


def dequantize(layer: nn.Module, dtype: torch.dtype) -> nn.Linear:
    """A plain nn.Linear with the NF4 layer's weight (fp32 math, cast once to `dtype`)."""
    out = nn.Linear(layer.in_features, layer.out_features, bias=layer.bias is not None,
                    device=weight_device(layer), dtype=dtype)
    with torch.no_grad():
        out.weight.copy_(dense_weight(layer))
        if layer.bias is not None:
            out.bias.copy_(layer.bias.float())
    out.requires_grad_(False)
    return out
