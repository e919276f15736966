"""The frozen base weight, plain or bitsandbytes NF4 (QLoRA): quantize, dequantize, multiply.

A base is an nn.Linear, a bitsandbytes Linear4bit or a transformers Conv1D (GPT-2 and its kin: y = x·W + b, W
stored (in, out)). Everything here speaks of W in nn.Linear's (out, in) orientation: a Conv1D's weight is read as
its transposed view and written back transposed, so the layers above never see the difference.
bitsandbytes is imported lazily so that plain LoRA never pays for it.
"""
from __future__ import annotations

import sys

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


def _conv1d_class() -> type | None:
    """transformers' Conv1D class, without importing transformers: if it is not loaded, no Conv1D exists."""
    utils = sys.modules.get("transformers.pytorch_utils")
    return None if utils is None else utils.Conv1D


def is_conv1d(layer: nn.Module) -> bool:
    conv1d = _conv1d_class()
    return conv1d is not None and isinstance(layer, conv1d)


def from_conv1d(layer: nn.Module) -> bool:
    """A Conv1D, or an NF4 layer quantized from one: its `source_cls`, as transformers' bitsandbytes integration
    and quantize_nf4 record it (merge gives back a Conv1D: the model's code and checkpoints expect one)."""
    conv1d = _conv1d_class()
    source = getattr(layer, "source_cls", None)
    return conv1d is not None and (isinstance(layer, conv1d) or isinstance(source, type) and issubclass(source, conv1d))


def features(layer: nn.Module) -> tuple[int, int]:
    """(in, out) of a base layer."""
    if is_conv1d(layer):
        return tuple(layer.weight.shape)
    return layer.in_features, layer.out_features


def weight_of(layer: nn.Module) -> torch.Tensor | None:
    """W as (out, in): a Conv1D's weight as its transposed view (same storage and version counter)."""
    w = _param_of(layer, "weight")
    return w.t() if is_conv1d(layer) else w


def replace_weight(layer: nn.Module, w: torch.Tensor) -> None:
    """Make `w` (out, in) the layer's weight data, in w's dtype (a Conv1D stores it transposed)."""
    layer.weight.data = w.t().contiguous() if is_conv1d(layer) else w


def copy_weight_(layer: nn.Module, w: torch.Tensor) -> None:
    """Copy `w` (out, in) into the layer's weight storage, in place (through .data, as a frozen weight's owner)."""
    weight_of(layer).data.copy_(w)


def bias_of(layer: nn.Module) -> torch.Tensor | None:
    return _param_of(layer, "bias")


def is_nf4(layer: nn.Module) -> bool:
    return is_nf4_weight(_param_of(layer, "weight"))


def is_nf4_weight(weight: torch.Tensor | None) -> bool:
    return type(weight).__name__ == "Params4bit"


def weight_device(layer: nn.Module) -> torch.device:
    return layer.weight.device


def dense_weight(layer: nn.Module) -> torch.Tensor:
    """The layer's weight as a detached fp32 (out, in) tensor (dequantized for NF4). A fresh W-sized temporary."""
    w = weight_of(layer)
    if is_nf4_weight(w):
        bnb = _bnb()
        return bnb.functional.dequantize_4bit(w.data, w.quant_state).float()
    return w.detach().float()


def matmul_no_bias(x: torch.Tensor, layer: nn.Module) -> torch.Tensor:
    """x @ Wᵀ in x's dtype, without the bias and without a dense copy of an NF4 W."""
    w = weight_of(layer)
    if is_nf4_weight(w):
        return _bnb().matmul_4bit(x, w.t(), quant_state=w.quant_state)
    return F.linear(x, w if w.dtype == x.dtype else w.to(x.dtype))


def quantize_nf4(layer: nn.Module, compute_dtype: torch.dtype, storage_dtype: torch.dtype) -> nn.Module:
    """A bitsandbytes NF4 Linear4bit holding `layer`'s weight as (out, in), as transformers quantizes a Conv1D
    (the bias stays in the storage dtype)."""
    bnb = _bnb()
    device = layer.weight.device
    n_in, n_out = features(layer)
    q = bnb.nn.Linear4bit(n_in, n_out, bias=layer.bias is not None, compute_dtype=compute_dtype, quant_type="nf4",
                          quant_storage=torch.uint8, device="meta")
    q.weight = bnb.nn.Params4bit(weight_of(layer).detach().to("cpu", storage_dtype).contiguous(),
                                 requires_grad=False, quant_type="nf4", quant_storage=torch.uint8)
    if layer.bias is not None:
        q.bias = nn.Parameter(layer.bias.detach().to("cpu", storage_dtype), requires_grad=False)
    q.source_cls = type(layer)  # what transformers records on the layers it quantizes
    return q.to(device)  # Params4bit quantizes on its first move to a device


def plain_layer(like: nn.Module, w: torch.Tensor, bias: torch.Tensor | None, dtype: torch.dtype) -> nn.Module:
    """A frozen nn.Linear holding `w` (out, in) and `bias` in `dtype`, or a Conv1D where `like` is (or was) one:
    what a merged or dequantized layer becomes."""
    n_out, n_in = w.shape
    if from_conv1d(like):
        with torch.device("meta"):  # no init of a weight about to be replaced
            out = _conv1d_class()(n_out, n_in)
        out.weight = nn.Parameter(w.t().to(dtype).contiguous(), requires_grad=False)
        out.bias = None if bias is None else nn.Parameter(bias.detach().to(dtype, copy=True), requires_grad=False)
        return out
    out = nn.Linear(n_in, n_out, bias=bias is not None, device=w.device, dtype=dtype)
    with torch.no_grad():
        out.weight.copy_(w)
        if bias is not None:
            out.bias.copy_(bias.float())
    out.requires_grad_(False)
    return out


def dequantize(layer: nn.Module, dtype: torch.dtype) -> nn.Module:
    """A plain nn.Linear (Conv1D, if it was one) with the NF4 layer's weight (fp32 math, cast once to `dtype`)."""
    return plain_layer(layer, dense_weight(layer), layer.bias, dtype)
