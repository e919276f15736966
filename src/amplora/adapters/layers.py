"""LoraLinear: a frozen base Linear (plain, bitsandbytes NF4 or transformers Conv1D) plus a LoRA or DoRA adapter,
as plain autograd. The base weight is read through amplora.adapters.quant, always as (out, in).

This file is the layer's reference: its math, top to bottom, over F.linear calls. Dtypes, all decided by the
precision policy the layer holds (amplora.precision):
- the input is cast to the policy's compute dtype (`Precision.to_compute`), at the module boundary, for the base
  layer *and* the adapter (an fp32 activation must never meet a half-precision weight: failure S001);
- adapter parameters are masters in the policy's master dtype (fp32), cast to the compute dtype inside the
  autograd graph, so their gradients arrive in fp32;
- DoRA's weight norm is computed in fp32 without building W + s·BA (low-rank expansion, PRECISION.md) and is
  cast once to the compute dtype before it scales the output (failure S000).
A layer on the fast path (`apply(path="fused")`, the default) carries `fast`, an amplora.adapters.fast.FastLayer:
its forward runs the same layer as one fused autograd node and returns None for what the node does not cover
(DoRA with dropout, an unfrozen base, a merged layer); this forward is then the one that runs. A `disabled` layer
(amplora.disable_adapters) skips both and runs its base layer only.
Parameter names match PEFT's saved keys: `lora_A.weight`, `lora_B.weight`, `lora_magnitude_vector`.
"""
from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from amplora.adapters import dora as dora_mod, quant
from amplora.adapters.fast import Clock, FastLayer, matmul_fp32, no_autocast
from amplora.precision import PRESETS, Precision

DORA_EPS = dora_mod.EPS
_NORM_BLOCK = 1 << 16  # elements of W per block of ‖W_i‖² (see refresh_weight_norm)


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Module, *, r: int, alpha: float, dropout: float = 0.0, dora: bool = False,
                 rslora: bool = False, precision: Precision = PRESETS["fp32"], fast: bool = True):
        """precision: the model's policy (compute and master dtypes). fast: run on the fast path (a FastLayer of
        its own; `apply` gives the layers of one model one clock, or none for path="plain")."""
        super().__init__()
        if r <= 0:
            raise ValueError(f"LoRA rank must be positive, got r={r}")
        self.base_layer = base
        self.in_features, self.out_features = quant.features(base)
        self.r, self.alpha, self.dora, self.rslora = r, alpha, dora, rslora
        self.scaling = alpha / math.sqrt(r) if rslora else alpha / r
        self.precision = precision
        self.merged = False
        self.disabled = False  # amplora.disable_adapters: the layer is its base layer for a while
        device, master = quant.weight_device(base), precision.master
        self.lora_A = nn.Linear(self.in_features, r, bias=False, device=device, dtype=master)
        self.lora_B = nn.Linear(r, self.out_features, bias=False, device=device, dtype=master)
        self.lora_dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        # ‖W_i‖² of the frozen weight, fp32, computed once; not saved (it is a function of W).
        self.register_buffer("weight_sq_norm", None, persistent=False)
        if dora:
            self.lora_magnitude_vector = nn.Parameter(torch.empty(self.out_features, device=device, dtype=master))
        self.fast = FastLayer(self, Clock(), top_level=True) if fast else None
        self.reset_parameters()

    @property
    def compute_dtype(self) -> torch.dtype:
        return self.precision.compute

    # ---- initialisation -------------------------------------------------------------------------------------
    def reset_parameters(self, init: str = "default") -> None:
        with torch.no_grad():
            if init == "gaussian":
                nn.init.normal_(self.lora_A.weight, std=1.0 / self.r)
            else:  # "default": what nn.Linear and PEFT use
                nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
            if init == "random":  # PEFT's init_lora_weights=False: B as nn.Linear initializes it, not zero
                nn.init.kaiming_uniform_(self.lora_B.weight, a=math.sqrt(5))
            else:
                nn.init.zeros_(self.lora_B.weight)
        self.refresh_weight_norm()
        if self.dora:
            with torch.no_grad():  # ‖W + s·BA‖ (‖W‖ when B = 0): the layer starts as the base layer
                norm = self.dora_norm() if init == "random" else self.weight_sq_norm.sqrt()
                self.lora_magnitude_vector.copy_(norm)

    def refresh_weight_norm(self) -> None:
        """Recompute the cached ‖W_i‖² (after the base weight changed: PiSSA init, merge, load)."""
        if self.fast is not None:
            self.fast.clear()
        if not self.dora:
            return
        base = self.base_layer
        # NF4 is dequantized whole (fp32, freed after this); a plain W is read in blocks of rows, not through one
        # W-sized fp32 temporary per layer: small allocations landed in the space each one freed, and the heap grew
        w = quant.dense_weight(base) if quant.is_nf4(base) else quant.weight_of(base).detach()
        rows = max(1, _NORM_BLOCK // w.shape[1])
        self.weight_sq_norm = torch.cat([block.float().pow(2).sum(dim=1) for block in w.split(rows)])

    # ---- forward --------------------------------------------------------------------------------------------
    def base_forward(self, x: torch.Tensor) -> torch.Tensor:
        """The frozen layer in the compute dtype (x is already in it)."""
        base = self.base_layer
        if quant.is_nf4(base):
            return base(x)
        bias = None if base.bias is None else base.bias.to(x.dtype)
        return F.linear(x, quant.weight_of(base).to(x.dtype), bias)  # storage -> compute (no-op when they agree)

    def lora_forward(self, x: torch.Tensor) -> torch.Tensor:
        c = x.dtype
        return F.linear(F.linear(x, self.lora_A.weight.to(c)), self.lora_B.weight.to(c))

    def weight_times_A(self, a_c: torch.Tensor | None = None) -> torch.Tensor:
        """W @ Aᵀ (out × r) in fp32, a fresh tensor (dora_cross_term accumulates into it): no W-sized temporary.
        a_c: A in the compute dtype when the caller has it (fast/kept.py), read instead of casting A again."""
        base, a = self._modules["base_layer"], self.adapter_tensors()[0]
        w = quant.weight_of(base)
        if quant.is_nf4_weight(w):  # bitsandbytes' own dequant + matmul, in the compute dtype
            c = self.precision.compute
            a = a if a.dtype == c else a_c if a_c is not None and a_c.dtype == c else a.to(c)
            return quant.matmul_no_bias(a, base).float().T
        # a plain W in its storage dtype (exact for fp32 storage), on the left: with M = out rather than M = r the
        # GEMM runs faster on CPU
        at = a.t() if a.dtype == w.dtype else a_c.t() if a_c is not None and a_c.dtype == w.dtype else \
            a.t().to(w.dtype)
        return matmul_fp32(w, at)

    def dora_cross_term(self, a_c: torch.Tensor | None = None) -> torch.Tensor:
        """B_i·[(W·Aᵀ)_i + (s/2)·B_i·(A·Aᵀ)] per row i, fp32, detached, a fresh tensor: 2s times it is
        ‖W_i + s·(BA)_i‖² − ‖W_i‖², in as few ops as it takes (dora.norms finishes the norm). Autocast off: it is
        called inside the model's policy region, which would run its products in the compute dtype. a_c: see
        weight_times_A."""
        (a, b, _), s = self.adapter_tensors(), self.scaling
        with torch.no_grad(), no_autocast(a):
            inner = self.weight_times_A(a_c).addmm_(b, a @ a.T, alpha=s / 2)
            return torch.linalg.vecdot(b, inner)

    def dora_norm(self) -> torch.Tensor:
        """‖W + s·BA‖_row in fp32, detached: a constant for backward (DoRA paper §4.3)."""
        return dora_mod.norms([self])[0]

    def dora_scale(self) -> torch.Tensor:
        """g = m / ‖W + s·BA‖_row in fp32 (gradient flows to m only)."""
        return self.lora_magnitude_vector.float() / self.dora_norm()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fast = self.fast
        # under torch.compile the plain path: the fast nodes read autograd internals dynamo cannot trace
        if fast is not None and not self.disabled and not torch.compiler.is_compiling():
            y = fast.forward(x)
            if y is not None:
                return y
        x = self.precision.to_compute(x)
        if self.merged or self.disabled:
            return self.base_forward(x)
        return self.autograd_forward(x)

    def adapter_tensors(self) -> tuple:
        """(A, B, magnitude or None), read from the module dicts: the fast path does this in every forward of every
        layer, and nn.Module.__getattr__ costs a Python call per lookup (two for `self.lora_A.weight`)."""
        modules = self._modules
        return (modules["lora_A"]._parameters["weight"], modules["lora_B"]._parameters["weight"],
                self._parameters["lora_magnitude_vector"] if self.dora else None)

    def autograd_forward(self, x: torch.Tensor) -> torch.Tensor:
        """The same layer as plain autograd over F.linear calls (x already in the compute dtype)."""
        out = self.base_forward(x)
        dropped = self.lora_dropout(x)
        lora = self.lora_forward(dropped) * self.scaling
        if not self.dora:
            return out + lora
        g = self.dora_scale().to(out.dtype)  # fp32 scale cast once, then it meets compute-dtype activations
        if isinstance(self.lora_dropout, nn.Identity):
            bias = self.base_layer.bias
            plain = out if bias is None else out - bias.to(out.dtype)
            return out + (g - 1) * plain + g * lora
        # with dropout, PEFT's formula: the magnitude rescales W·dropout(x), not W·x
        plain = quant.matmul_no_bias(dropped, self.base_layer)
        return out + (g - 1) * plain + g * lora

    # ---- merge ----------------------------------------------------------------------------------------------
    def merged_weight(self) -> torch.Tensor:
        """The folded weight in fp32: W + s·BA (LoRA) or g ⊙ (W + s·BA) (DoRA); fp32 inside a caller's autocast
        region too."""
        b = self.lora_B.weight.detach().float()
        with no_autocast(b):
            w = quant.dense_weight(self.base_layer)
            w = w + self.scaling * (b @ self.lora_A.weight.detach().float())
            if self.dora:
                norm = w.norm(dim=1).clamp_min(DORA_EPS)
                w = w * (self.lora_magnitude_vector.detach().float() / norm).unsqueeze(1)
        return w

    def extra_repr(self) -> str:
        kind = "dora" if self.dora else "lora"
        return f"{kind}, r={self.r}, scaling={self.scaling:g}, compute={self.precision.compute}"
