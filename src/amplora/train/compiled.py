"""`compile: true`: each decoder layer compiled for training steps; on CUDA its kernels replayed as CUDA graphs.

A step of a small model on a GPU is bound by the host's kernel launches (bench/README.md: the eager SmolLM2-135M
floor takes 94 ms at 4x256 on an H200, 13 ms with its layers replayed as CUDA graphs). One compile serves every
layer (the layers share their code), so compiling takes seconds, not minutes. Only grad-enabled training calls
take the compiled layer: generation's growing KV cache and the doctor's op-by-op re-run stay eager. Sequence
lengths are padded up to a multiple of BUCKET, so a run sees a handful of shapes (CUDA graphs need static ones).
"""
from __future__ import annotations

import functools

import torch
import torch._dynamo
from torch.utils._python_dispatch import _get_current_dispatch_mode

BUCKET = 64  # tokens: micro-batch widths are padded up to a multiple of this


def _layer_call(layer, compiled, *args, **kwargs):
    if layer.training and torch.is_grad_enabled() and _get_current_dispatch_mode() is None:
        return compiled(*args, **kwargs)
    return layer._call_impl(*args, **kwargs)


def compile_layers(model, device: torch.device) -> int:
    """Compile every decoder layer of `model` for training calls; returns how many layers."""
    mode = "reduce-overhead" if device.type == "cuda" else None
    layers = [m for m in model.modules() if type(m).__name__.endswith("DecoderLayer")]
    # a graph per (bucket, batch size, first layer or not): room for all of them before dynamo gives up
    name = "recompile_limit" if hasattr(torch._dynamo.config, "recompile_limit") else "cache_size_limit"
    setattr(torch._dynamo.config, name, max(getattr(torch._dynamo.config, name), 64))
    for layer in layers:
        # nn.Module.__call__ runs _compiled_call_impl when set (what Module.compile sets), hooks included
        layer._compiled_call_impl = functools.partial(
            _layer_call, layer, torch.compile(layer._call_impl, mode=mode, dynamic=False))
    return len(layers)


def step_begins(device: torch.device) -> None:
    """Before each micro-batch: the last CUDA graph replay's outputs are no longer read."""
    if device.type == "cuda":
        torch.compiler.cudagraph_mark_step_begin()
