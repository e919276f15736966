"""DoRA's row norm ‖W + s·BA‖_row, fp32 and detached (a constant for backward, DoRA paper §4.3), for any number of
layers at once: each layer's GEMMs, then every elementwise step as one multi-tensor op for all of them, so that a
fast-path refresh of a whole model (fast/kept.py) launches a few kernels where it launched four per layer. A layer
provides `dora_cross_term()`, `scaling` and `weight_sq_norm` (LoraLinear does)."""
from __future__ import annotations

import torch

EPS = 1e-6  # guards the row norm against zero rows


def norms(layers, a_cs=None) -> list[torch.Tensor]:
    """‖W_i + s·(BA)_i‖ = sqrt(‖W_i‖² + 2s·cross_i) per layer, each a fresh (out,) fp32 tensor. a_cs: each layer's
    A in its compute dtype, where the caller has it (read instead of a cast)."""
    with torch.no_grad():
        sq = [layer.dora_cross_term(a_c) for layer, a_c in zip(layers, a_cs or [None] * len(layers))]
        torch._foreach_mul_(sq, [2 * layer.scaling for layer in layers])
        torch._foreach_add_(sq, [layer.weight_sq_norm for layer in layers])
        torch._foreach_clamp_min_(sq, EPS * EPS)
        torch._foreach_sqrt_(sq)
    return sq
