"""`disable_adapters`: the adapted model computes its base model for the duration of a `with` block."""
from __future__ import annotations

import contextlib

import torch.nn as nn

from amplora.adapters.apply import lora_layers
from amplora.errors import AmploraError


@contextlib.contextmanager
def disable_adapters(model: nn.Module):
    """Inside the block every adapted layer runs its frozen base layer only (both paths, LoRA and DoRA), so the
    model gives the base model's outputs: the reference model of a DPO-style loss without a second copy. Each
    layer's previous state comes back on exit, also when the block raises; blocks nest."""
    layers = lora_layers(model)
    if not layers:
        raise AmploraError("model has no amplora adapters to disable (call amplora.apply first)")
    merged = next((name for name, layer in layers.items() if layer.merged), None)
    if merged is not None:  # its base weight holds the adapter: disabling would change nothing
        raise AmploraError(f"{merged}: the adapters are merged into the base weights (merge(keep_adapters=True)); "
                           "unmerge(model) before disabling them")
    before = {layer: layer.disabled for layer in layers.values()}
    try:
        for layer in layers.values():
            layer.disabled = True
        yield model
    finally:
        for layer, state in before.items():
            layer.disabled = state
