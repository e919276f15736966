"""One autograd node for an adapted linear layer: frozen base matmul + LoRA (or DoRA) path, forward and backward.

Why a custom Function instead of plain autograd over `F.linear` calls:
- it saves only what backward needs: the adapter input x (compute dtype) and h = x·Aᵀ (tokens × r). The frozen
  weight is re-read (or re-dequantized for NF4) in backward instead of keeping a compute-dtype copy alive, and no
  tokens × out intermediate of the LoRA branch is kept (DoRA keeps its own output, see below). Where x is the
  output of a node whose saved tensors determine it (the lean RMSNorm / SwiGLU of lean.py; without them, a product
  like SwiGLU's act(gate)·up or an fp32 RMSNorm's), x is replayed bit for bit in backward instead of being kept
  a second time;
- the LoRA product is accumulated into the base output in place (`addmm_`) rather than through separate
  `* scaling` and `+` passes over a tokens × out tensor, forward and backward (s is folded into the r × out
  factor);
- every dtype is decided here, by construction: matmuls on activations run in the compute dtype c of x (the
  policy's), the gradient w.r.t. x leaves in c, adapter gradients leave in fp32 (the masters' dtype) from GEMMs
  in fp32, or in bf16 when c is bf16 (`grad_gemm_dtype` says why). The only in-place writes go into tensors this
  Function just created, from operands of the same dtype — never an `out=` buffer of another dtype (failure
  S002). Autocast is switched off inside, so a caller's region cannot re-type anything;
- without grad (generate, eval) the same math runs without building a node.

DoRA (no dropout): y = g ⊙ (x·Wᵀ + s·h·Bᵀ) + bias with g = m / ‖W + s·BA‖_row, the norm detached (DoRA §4.3) and
fp32. The magnitude gradient needs z = x·Wᵀ + s·h·Bᵀ per token. On CPU, without a bias and with no zero in g, it
is recovered from the saved output as y / g (the output is often saved downstream anyway, e.g. by SiLU for the
gate/up projections), so no second tokens × out tensor is kept; otherwise z itself is saved. A saved output
means a caller must not modify it in place (autograd reports it if one does).
"""
from __future__ import annotations

import torch
import torch.nn as nn
from torch.autograd.function import once_differentiable

from amplora.adapters import lean, quant


def base_matmul(x2: torch.Tensor, base: nn.Module) -> torch.Tensor:
    """x·Wᵀ without bias, in x's dtype (NF4: bitsandbytes' own dequant + matmul)."""
    return quant.matmul_no_bias(x2, base)


def base_grad_input(g2: torch.Tensor, base: nn.Module) -> torch.Tensor:
    """g·W in g's dtype: the gradient through the frozen weight (no weight gradient is ever needed)."""
    w = base.weight
    if quant.is_nf4(base):
        w = quant._bnb().functional.dequantize_4bit(w.data, w.quant_state)  # transient, freed after the mm
    return torch.mm(g2, w.detach().to(g2.dtype))  # storage -> compute, a no-op when they agree


class AdapterLinear(torch.autograd.Function):
    """y = base(x) + s·dropout(x)·Aᵀ·Bᵀ, or the DoRA form. Arguments:
    x: activations in the compute dtype; xd: dropout(x), or None when there is no dropout (then x is used and
    saved once); a, b: fp32 master weights (r × in, out × r); magnitude: fp32 (out,) or None; norm: detached fp32
    (out,) row norm of W + s·BA (DoRA only); base: the frozen nn.Linear / bnb Linear4bit; scaling: s."""

    @staticmethod
    def forward(ctx, x, xd, a, b, magnitude, norm, base, scaling):
        with lean.no_autocast(x):
            y, xd2, h, dora = _forward(x, xd, a, b, magnitude, norm, base, scaling)
        ctx.base, ctx.scaling, ctx.has_xd, ctx.in_features = base, scaling, xd is not None, x.shape[-1]
        ctx.producer = _recomputable_product(x) if xd is None else None
        kept = None
        if dora is not None:  # g in c, the tensor whose Σ_t gy·(·) gives ∂L/∂m up to m_scale
            ctx.g_c, kept, ctx.m_scale = dora
            kept = y if kept is None else kept
        ctx.save_for_backward(None if ctx.producer is not None else xd2, h, a, b, kept)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, gy):
        xd2, h, a, b, kept = ctx.saved_tensors
        if ctx.producer is not None:  # x again, from the operands its product nodes keep
            xd2 = _replay(ctx.producer).reshape(-1, ctx.in_features)
            ctx.producer = None
        need_x, need_xd, need_a, need_b, need_m = ctx.needs_input_grad[:5]
        c, s = xd2.dtype, ctx.scaling
        grad_x = grad_xd = grad_a = grad_b = grad_m = None
        with lean.no_autocast(gy):
            gy2 = gy.reshape(-1, gy.shape[-1]).to(c)
            gz = gy2
            if kept is not None:  # DoRA
                if need_m:  # products in c, summed in fp32
                    grad_m = (gy2 * kept.reshape(gy2.shape)).sum(0, dtype=torch.float32).mul_(ctx.m_scale)
                gz = gy2 * ctx.g_c
            gh = torch.mm(gz, _bt(b, c).t())  # tokens × r; s is applied to the small results below
            if need_x:
                grad_x = base_grad_input(gz, ctx.base)
                if not ctx.has_xd:
                    grad_x.addmm_(gh, _cast(a, c), alpha=s)  # grad_x is fresh and in c, as are gh and A
                grad_x = grad_x.view(*gy.shape[:-1], grad_x.shape[-1])
            if need_xd:
                grad_xd = torch.mm(gh, _cast(a, c)).mul_(s).view(*gy.shape[:-1], a.shape[1])
            # adapter gradients: token-long reductions, accumulated in fp32 inside the GEMM either way (see
            # grad_gemm_dtype for the dtype of the operands and result); they leave in the masters' dtype
            g = grad_gemm_dtype(c)
            if need_a:
                grad_a = torch.mm(_cast(gh.t(), g), _cast(xd2, g)).to(a.dtype).mul_(s)
            if need_b:  # computed as (hᵀ·gz)ᵀ: the wide output is the faster GEMM layout on CPU
                grad_b = torch.mm(_cast(h.t(), g), _cast(gz, g)).to(b.dtype).mul_(s).t()
        return grad_x, grad_xd, grad_a, grad_b, grad_m, None, None, None


def _forward(x, xd, a, b, magnitude, norm, base, scaling):
    """The forward math. Returns y, the adapter input as 2-D, h = x·Aᵀ and, for DoRA, (g in c, the tensor to
    keep for the magnitude gradient — None meaning y itself —, the factor that turns Σ_t gy·kept into ∂L/∂m)."""
    c = x.dtype
    x2 = x.reshape(-1, x.shape[-1])
    xd2 = x2 if xd is None else xd.reshape(-1, xd.shape[-1])
    h = torch.mm(xd2, _cast(a, c).t())
    z = base_matmul(x2, base)
    z.addmm_(h, _bt(b, c), alpha=scaling)  # z is fresh and in c, as are h and Bᵀ; s rides on the GEMM
    bias_c = None if base.bias is None else _cast(base.bias, c)
    shape = (*x.shape[:-1], z.shape[-1])
    if magnitude is None:
        return (z if bias_c is None else z.add_(bias_c)).view(shape), xd2, h, None
    g_c = (magnitude / norm).to(c)  # fp32 scale, cast once to meet c activations (S000)
    # z = y / g is recoverable without a bias and with no zero in g; the check syncs, so only on CPU
    if bias_c is None and x.device.type == "cpu" and not bool((g_c == 0).any()):
        return z.mul_(g_c).view(shape), xd2, h, (g_c, None, 1 / (g_c.float() * norm))
    y = z * g_c if bias_c is None else torch.addcmul(bias_c, z, g_c)
    return y.view(shape), xd2, h, (g_c, z, 1 / norm)


def grad_gemm_dtype(c: torch.dtype) -> torch.dtype:
    """The dtype of the adapter-gradient GEMMs (∂A = s·ghᵀ·x, ∂B = s·(hᵀ·gz)ᵀ) for compute dtype c.
    bf16: the GEMMs run in bf16 (fp32 accumulation, one bf16 rounding of the r-wide result). Their operands gh and
    h are bf16 products already, so that rounding is of the size of the error they carry, while an fp32 GEMM would
    first copy the tokens-by-width activation and gradient to fp32 for every adapted layer (about 1.25 GB of fp32
    temporaries per step for SmolLM2 at 4x256; -13% bf16 LoRA step time without them). It is what autocast + fp32
    adapters (PEFT under bf16 autocast) does too. fp16: fp32, since a token-long sum of loss-scaled fp16 products
    can exceed fp16's range (65504) where fp32 would not. fp32: fp32."""
    return torch.bfloat16 if c == torch.bfloat16 else torch.float32


def _cast(t: torch.Tensor, c: torch.dtype) -> torch.Tensor:
    return t if t.dtype == c else t.to(c)


def _bt(b: torch.Tensor, c: torch.dtype) -> torch.Tensor:
    """Bᵀ (r × out) in c. A half-precision copy is made contiguous in that layout: half-precision CPU GEMMs are
    up to 3x slower with B's own layout (fp32 ones do not care, so fp32 takes the free transposed view)."""
    return b.t() if b.dtype == c else b.t().to(c, memory_format=torch.contiguous_format)


def _recomputable_product(x: torch.Tensor):
    """The autograd node of x when x can be replayed bit for bit from tensors autograd keeps anyway, so backward
    recomputes x instead of keeping a second copy: the output of a lean RMSNorm / SwiGLU node (lean.py), or a
    product whose operands are saved — SwiGLU's act(gate) * up and an fp32 RMSNorm's weight * (h * rsqrt(var))
    when the transformers modules were kept (apply(lean_modules=False)). Not under saved-tensor hooks
    (checkpointing, offloading), where unpacking another node's tensors would cost a recompute or a copy."""
    node = x.grad_fn
    if node is None or x._version != 0:
        return None
    hooks = getattr(torch._C._autograd, "_top_saved_tensors_default_hooks", None)
    if hooks is None or hooks(False) is not None:
        return None
    return node if lean.replayable(node) or _replayable(node, depth=2) else None


def _replayable(node, depth: int) -> bool:
    """An out-of-place tensor·tensor product whose operands were each saved by it or are such products."""
    if node is None or depth == 0 or type(node).__name__ != "MulBackward0":
        return False
    try:
        operands = (node._saved_self, node._saved_other)
    except (RuntimeError, AttributeError):  # freed already, or a torch without these attributes: just save x
        return False
    inputs = node.next_functions  # (producer node, output index) of self and other
    return all(t is not None or (inputs[i][1] == 0 and _replayable(inputs[i][0], depth - 1))
               for i, t in enumerate(operands))


def _replay(node) -> torch.Tensor:
    if lean.replayable(node):
        return lean.replay(node)
    a, b = (t if t is not None else _replay(node.next_functions[i][0])
            for i, t in enumerate((node._saved_self, node._saved_other)))
    return a * b  # the very op of the forward on the very operands: the same bits


def adapter_linear(x, xd, a, b, magnitude, norm, base, scaling) -> torch.Tensor:
    if torch.is_grad_enabled() and (x.requires_grad or a.requires_grad or b.requires_grad
                                    or (magnitude is not None and magnitude.requires_grad)):
        return AdapterLinear.apply(x, xd, a, b, magnitude, norm, base, scaling)
    with lean.no_autocast(x):  # generate / eval: the same math without building a graph node
        y = _forward(x, xd, a, b, magnitude, norm, base, scaling)[0]
    return y


def supported(base: nn.Module, dora: bool, dropout: bool) -> bool:
    """The fused node covers a frozen base (plain or NF4); DoRA with dropout keeps the autograd path."""
    frozen = not base.weight.requires_grad and (base.bias is None or not base.bias.requires_grad)
    return frozen and not (dora and dropout)


