"""LoraLinear: a frozen base Linear (plain or bitsandbytes NF4) plus a LoRA or DoRA adapter.

Dtypes, all decided by the precision policy (amplora.precision):
- the input is cast to the policy's compute dtype here, at the module boundary, for the base layer *and* the
  adapter (an fp32 activation must never meet a half-precision weight: failure S001);
- adapter parameters are fp32 masters, cast to the compute dtype inside the autograd graph, so their gradients
  arrive in fp32;
- DoRA's weight norm is computed in fp32 without building W + s·BA (low-rank expansion, PRECISION.md) and is
  cast once to the compute dtype before it scales the output (failure S000).
The forward runs as one fused autograd node (kernels.py: base matmul + adapter, minimal saved state, dtypes fixed
by construction in backward too); `autograd_forward` is the same layer as plain autograd, kept as the reference
and for the cases the node does not cover (DoRA with dropout, an unfrozen base).
Parameter names match PEFT's saved keys: `lora_A.weight`, `lora_B.weight`, `lora_magnitude_vector`.
"""
from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.optimizer import register_optimizer_step_post_hook

from amplora.adapters import kernels, lean, quant

DORA_EPS = 1e-6  # guards the row norm of W + s·BA against zero rows
_NORM_BLOCK = 1 << 16  # elements of W per block of ‖W_i‖² (see refresh_weight_norm)
# The fused autograd node (kernels.py) is the default; False selects the plain autograd path everywhere (the
# reference that tests/adapters/test_kernels.py and bench/speed.py's *-autograd configs compare against).
FUSED = True
# Steps taken by any torch optimizer so far: part of the key of what a layer keeps per state of its weights (the
# no-grad cache, DoRA's zero check). A fused optimizer (AdamW(fused=True)) writes parameters in place without
# bumping their version counters, so versions alone would miss its steps.
_optimizer_steps = 0


def _count_optimizer_step(optimizer, args, kwargs) -> None:
    global _optimizer_steps
    _optimizer_steps += 1


register_optimizer_step_post_hook(_count_optimizer_step)


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, *, r: int, alpha: float, dropout: float = 0.0, dora: bool = False,
                 rslora: bool = False, compute_dtype: torch.dtype = torch.float32):
        super().__init__()
        if r <= 0:
            raise ValueError(f"LoRA rank must be positive, got r={r}")
        self.base_layer = base
        self.in_features, self.out_features = base.in_features, base.out_features
        self.r, self.alpha, self.dora, self.rslora = r, alpha, dora, rslora
        self.scaling = alpha / math.sqrt(r) if rslora else alpha / r
        self.compute_dtype = compute_dtype
        self.merged = False
        self.siblings = None  # a siblings.Siblings this layer shares its input with, set by apply
        self.inference_cache = None  # see node_args
        self.dora_terms_cache = None  # see dora_terms
        device = quant.weight_device(base)
        self.lora_A = nn.Linear(self.in_features, r, bias=False, device=device, dtype=torch.float32)
        self.lora_B = nn.Linear(r, self.out_features, bias=False, device=device, dtype=torch.float32)
        self.lora_dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        # ‖W_i‖² of the frozen weight, fp32, computed once; not saved (it is a function of W).
        self.register_buffer("weight_sq_norm", None, persistent=False)
        if dora:
            self.lora_magnitude_vector = nn.Parameter(torch.empty(self.out_features, device=device))
        self.reset_parameters()

    # ---- initialisation -------------------------------------------------------------------------------------
    def reset_parameters(self, init: str = "default") -> None:
        with torch.no_grad():
            if init == "gaussian":
                nn.init.normal_(self.lora_A.weight, std=1.0 / self.r)
            else:  # "default": what nn.Linear and PEFT use
                nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
            nn.init.zeros_(self.lora_B.weight)
        self.refresh_weight_norm()
        if self.dora:
            with torch.no_grad():  # B = 0, so ‖W + s·BA‖ = ‖W‖ and the layer starts as the base layer
                self.lora_magnitude_vector.copy_(self.weight_sq_norm.sqrt())

    def refresh_weight_norm(self) -> None:
        """Recompute the cached ‖W_i‖² (after the base weight changed: PiSSA init, merge, load)."""
        self.inference_cache = self.dora_terms_cache = None
        if not self.dora:
            return
        base = self.base_layer
        # NF4 is dequantized whole (fp32, freed after this); a plain W is read in blocks of rows, not through one
        # W-sized fp32 temporary per layer: small allocations landed in the space each one freed, and the heap grew
        # (SmolLM2 fp32 DoRA: 1197 MB RSS after apply that way, 836 MB this way)
        w = quant.dense_weight(base) if quant.is_nf4(base) else base.weight.detach()
        rows = max(1, _NORM_BLOCK // w.shape[1])
        self.weight_sq_norm = torch.cat([block.float().pow(2).sum(dim=1) for block in w.split(rows)])

    # ---- forward --------------------------------------------------------------------------------------------
    def base_forward(self, x: torch.Tensor) -> torch.Tensor:
        """The frozen layer in the compute dtype (x is already in it)."""
        base = self.base_layer
        if quant.is_nf4(base):
            return base(x)
        bias = None if base.bias is None else base.bias.to(x.dtype)
        return F.linear(x, base.weight.to(x.dtype), bias)  # storage -> compute (no-op when they agree)

    def lora_forward(self, x: torch.Tensor) -> torch.Tensor:
        c = x.dtype
        return F.linear(F.linear(x, self.lora_A.weight.to(c)), self.lora_B.weight.to(c))

    def weight_times_A(self) -> torch.Tensor:
        """W @ Aᵀ (out × r) in fp32, a fresh tensor (dora_norm accumulates into it): no W-sized temporary."""
        base, a = self._modules["base_layer"], self._adapter_tensors()[0]
        w = quant.weight_of(base)
        if quant.is_nf4_weight(w):  # bitsandbytes' own dequant + matmul, in the compute dtype
            c = self.compute_dtype
            return quant.matmul_no_bias(a if a.dtype == c else a.to(c), base).float().T
        # a plain W in its storage dtype (exact for fp32 storage), on the left: with M = out rather than M = r the
        # GEMM is about 1.25x faster on CPU (bf16 1536 x 576, with the casts: 102 against 131 µs, hot in cache)
        return torch.mm(w, a.t() if a.dtype == w.dtype else a.t().to(w.dtype)).float()

    def dora_norm(self) -> torch.Tensor:
        """‖W + s·BA‖_row in fp32, detached: a constant for backward (DoRA paper §4.3). Autocast off: it is called
        inside the model's policy region, which would run its products in the compute dtype."""
        (a, b, _), s = self._adapter_tensors(), self.scaling
        with torch.no_grad(), lean.no_autocast(a):
            # ‖W_i + s·(BA)_i‖² = ‖W_i‖² + 2s·B_i·[(W·Aᵀ)_i + (s/2)·B_i·(A·Aᵀ)], in as few ops as it takes
            inner = self.weight_times_A().addmm_(b, a @ a.T, alpha=s / 2)
            sq = torch.linalg.vecdot(b, inner).mul_(2 * s).add_(self.weight_sq_norm)
            return sq.clamp_min_(DORA_EPS * DORA_EPS).sqrt_()

    def dora_scale(self) -> torch.Tensor:
        """g = m / ‖W + s·BA‖_row in fp32 (gradient flows to m only)."""
        return self.lora_magnitude_vector.float() / self.dora_norm()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.siblings is not None:  # q/k/v, gate/up: one node for the layers that read the same x
            y = self.siblings.output(self, x)
            if y is not None:
                return y
        # Boundary cast: base layer and adapter both run in the policy's compute dtype, whatever arrives.
        if x.dtype != self.compute_dtype:
            x = x.to(self.compute_dtype)
        if self.merged:
            return self.base_forward(x)
        modules = self._modules  # (not self.lora_dropout etc.: see _adapter_tensors)
        dropout = modules["lora_dropout"]
        dropout = None if isinstance(dropout, nn.Identity) else dropout
        if FUSED and kernels.supported(modules["base_layer"], self.dora, dropout is not None):
            xd = None if dropout is None else dropout(x)
            layer, params = self.node_args()
            return kernels.adapter_linears(x, xd, (layer,), params)[0]
        return self.autograd_forward(x)

    # ---- the fused node's view of this layer (kernels.AdapterLinear) ----------------------------------------
    def fusable(self) -> bool:
        """Whether this layer can join a node with its siblings: unmerged, no dropout (each layer draws its own
        mask), a base the node covers."""
        modules = self._modules
        return (FUSED and not self.merged and isinstance(modules["lora_dropout"], nn.Identity)
                and kernels.supported(modules["base_layer"], self.dora, False))

    def _adapter_tensors(self) -> tuple:
        """(A, B, magnitude or None), read from the module dicts: every forward of every layer does this, and
        nn.Module.__getattr__ costs a Python call per lookup (about 1 µs; 2 for `self.lora_A.weight`)."""
        modules = self._modules
        return (modules["lora_A"]._parameters["weight"], modules["lora_B"]._parameters["weight"],
                self._parameters["lora_magnitude_vector"] if self.dora else None)

    def node_args(self) -> tuple[kernels.Layer, tuple]:
        """This layer as the fused node takes it: (Layer, (A, B, magnitude)). Without grad (generate, eval), A
        and Bᵀ in the compute dtype and DoRA's row norm and g are computed once per version of the weights and
        kept: a decoded token would otherwise pay them again in every layer (for DoRA a pass over W). A forward
        with grad drops them."""
        a, b, m = params = self._adapter_tensors()
        if torch.is_grad_enabled():
            if self.inference_cache is not None:  # (Module.__setattr__ is slow too: only when there is one)
                self.inference_cache = None
            if not self.dora:
                return kernels.Layer(self._modules["base_layer"], self.scaling), params
            return kernels.Layer(self._modules["base_layer"], self.scaling, *self.dora_terms()), params
        key = self.weights_key()
        if self.inference_cache is None or self.inference_cache[0] != key:
            c = self.compute_dtype
            a_c = a if a.dtype == c else a.detach().to(c)
            b_c = b if b.dtype == c else kernels._bt(b, c).t()  # a view of Bᵀ made contiguous: the fast layout
            norm, _, g_c = self.dora_terms() if self.dora else (None, None, None)  # shared with training
            self.inference_cache = (key, a_c, b_c, norm, g_c)
        _, a_c, b_c, norm, g_c = self.inference_cache
        return kernels.Layer(self._modules["base_layer"], self.scaling, norm, g=g_c), (a_c, b_c, m)

    def weights_key(self) -> tuple:
        """Changes whenever A, B, the magnitude or W may have: their version counters and storages, and the count
        of optimizer steps (see _optimizer_steps)."""
        a, b, m = self._adapter_tensors()
        ts = (a, b, quant.weight_of(self._modules["base_layer"])) + ((m,) if self.dora else ())
        return (_optimizer_steps, self.compute_dtype, *(t._version for t in ts), *(t.data_ptr() for t in ts))

    def dora_terms(self) -> tuple[torch.Tensor, bool, torch.Tensor]:
        """DoRA: (the detached fp32 row norm, whether g has no zero, g = m / norm in the compute dtype), as
        kernels.Layer takes them. Computed once per state of the weights: the micro-batches of one optimizer step,
        the recompute of an activation-checkpointed forward and the no-grad cache (generate between steps) reuse
        them instead of reading W again (W·Aᵀ and a dozen small ops: 0.44 ms per 576→1536 bf16 layer on a 2-core
        CPU, hot in cache).
        The zero check lets the node recover z from its output (y / g) instead of keeping a tokens × out copy;
        off the CPU it would synchronize once per layer and step, which serialized host and GPU on an H100 (bf16
        DoRA, 8x1024: 0.38 s/step against 0.24 keeping z), so z is kept there instead."""
        key = self.weights_key()
        cache = self.dora_terms_cache
        if cache is None or cache[0] != key:
            norm = self.dora_norm()
            g_c = kernels.dora_scale(self._parameters["lora_magnitude_vector"].detach(), norm, self.compute_dtype)
            zero_free = not bool((g_c == 0).any()) if g_c.is_cpu else False
            cache = self.dora_terms_cache = (key, norm, zero_free, g_c)
        return cache[1:]

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
        with lean.no_autocast(b):
            w = quant.dense_weight(self.base_layer)
            w = w + self.scaling * (b @ self.lora_A.weight.detach().float())
            if self.dora:
                norm = w.norm(dim=1).clamp_min(DORA_EPS)
                w = w * (self.lora_magnitude_vector.detach().float() / norm).unsqueeze(1)
        return w

    def extra_repr(self) -> str:
        kind = "dora" if self.dora else "lora"
        return f"{kind}, r={self.r}, scaling={self.scaling:g}, compute={self.compute_dtype}"
