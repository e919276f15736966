"""One autograd node for one adapted linear layer, or for several that read the same input (q/k/v, gate/up; see
siblings.py): frozen base matmul + LoRA (or DoRA) path, forward and backward.

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
- every dtype is decided here, by construction: matmuls on activations run in the compute dtype c of x (the policy's),
  the gradient w.r.t. x leaves in c, adapter gradients leave in fp32 (the masters' dtype) from GEMMs in fp32, or in
  bf16 when c is bf16 (amplora.precision.grad_gemm_dtype decides, and says why). The only in-place writes go into
  tensors this Function just created, from operands of the same dtype — never an `out=` buffer of another dtype
  (failure S002). Autocast is switched off inside, so a caller's region cannot re-type anything;
- without grad (generate, eval) the same math runs without building a node.

DoRA (no dropout): y = g ⊙ (x·Wᵀ + s·h·Bᵀ) + bias with g = m / ‖W + s·BA‖_row, the norm detached (DoRA §4.3) and fp32.
The magnitude gradient needs z = x·Wᵀ + s·h·Bᵀ per token. Without a bias and with no zero in g, it is recovered from
the saved output as y / g (the output is often saved downstream anyway, e.g. by SiLU for the gate/up projections), so
no second tokens × out tensor is kept; otherwise z itself is saved. The fast layer (layer.py) makes the zero check
once per state of its weights, on the CPU only: on a GPU it would synchronize, and z is kept. The output is kept as
an alias, not saved, because a model may add into it in place (Falcon, Llama 4's MoE): backward then recomputes z
(one GEMM) instead of failing. The output, kept or recomputed as g·z (`replay_output`), also lets a lean RMSNorm
behind a residual sum replay that sum (lean.py).
"""
from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from amplora.adapters import quant
from amplora.adapters.fast import lean
from amplora.adapters.fast.torch_private import (graph_kept, no_autocast, once_differentiable, product_operands,
                                                  saved_tensor_hooks_active, version)
from amplora.errors import AmploraError
from amplora.precision import grad_gemm_dtype


def base_matmul(x2: torch.Tensor, base: nn.Module) -> torch.Tensor:
    """x·Wᵀ without bias, in x's dtype (NF4: bitsandbytes' own dequant + matmul)."""
    return quant.matmul_no_bias(x2, base)


def base_grad_input(g2: torch.Tensor, base: nn.Module, into: torch.Tensor | None = None) -> torch.Tensor:
    """g·W in g's dtype: the gradient through the frozen weight (no weight gradient is ever needed); added into
    `into` (a fresh tensor of g's dtype) when given, as the sibling layers of a group sum their input gradients."""
    w = quant.weight_of(base)  # read here, not kept from forward: FSDP2 re-gathers it for backward
    if quant.is_nf4_weight(w):
        w = quant._bnb().functional.dequantize_4bit(w.data, w.quant_state)  # transient, freed after the mm
    w = _cast(w, g2.dtype)  # storage -> compute (backward runs without grad: no detach needed)
    return torch.mm(g2, w) if into is None else into.addmm_(g2, w)


class Layer(NamedTuple):
    """What the node needs of one adapted layer besides its parameters: the frozen base (nn.Linear, bnb
    Linear4bit or Conv1D), s, and for DoRA the detached fp32 (out,) row norm of W + s·BA (None for LoRA), whether
    g = m / norm in the compute dtype is free of zeros (None: the node checks, which synchronizes a GPU), and that
    g if the caller has it already (None: the node computes it); A in the compute dtype, or for a node of several
    layers the stack [A_1; A_2; ...] in it, the same tensor on every layer (None: the node casts); Bᵀ in the compute
    dtype (None: the node casts); for DoRA, 1 / norm (None: the node computes it). kept.py keeps all of them
    per state of the weights."""
    base: nn.Module
    scaling: float
    norm: torch.Tensor | None = None
    g_zero_free: bool | None = None
    g: torch.Tensor | None = None
    norm_inv: torch.Tensor | None = None
    a_c: torch.Tensor | None = None
    bt: torch.Tensor | None = None


class AdapterLinear(torch.autograd.Function):
    """For each layer i of `layers`, all fed the same x: y_i = base_i(x) + s_i·dropout(x)·A_iᵀ·B_iᵀ, or the DoRA
    form. Arguments: x: activations in the compute dtype; xd: dropout(x), or None when there is no dropout (then
    x is used and saved once; a group of several layers has no dropout); params: a_i, b_i, magnitude_i per layer,
    fp32 masters (r × in, out × r, (out,) or None for LoRA). Returns one output per layer.

    Several layers in one node (q/k/v, gate/up: siblings.py) read x once: their A-products run as one GEMM
    against the stacked [A_1; A_2; ...] forward and backward (the r-wide GEMMs are the slow part of an adapter on
    CPU: a 3·r-wide one costs little more than an r-wide one), and their input gradients are summed in place
    into one tensor instead of by autograd."""

    @staticmethod
    def forward(ctx, x, xd, layers, *params):
        with no_autocast(x):
            ys, xd2, h, doras, ctx.casts = _forward(x, xd, layers, params)
        ctx.layers, ctx.has_xd, ctx.x_shape = layers, xd is not None, x.shape
        scales = {layer.scaling for layer in layers}
        ctx.scale = scales.pop() if len(scales) == 1 else None  # one s for the whole node, or None
        hooked = saved_tensor_hooks_active()  # kept tensors go through hooks (see _recomputable_product)
        ctx.producer = _recomputable_product(x, hooked) if xd is None else None
        ctx.set_materialize_grads(False)  # an output nobody used contributes nothing
        ctx.dora, kept, ctx.outputs, ctx.aliases = [], [], [], {}
        for i, (layer, y, dora) in enumerate(zip(layers, ys, doras)):
            # DoRA: (g in c, the factor m_scale that turns Σ_t gy·kept into ∂L/∂m)
            ctx.dora.append(None if dora is None else (dora[0], dora[2]))
            if dora is not None and dora[1] is None and not hooked:
                # y itself, held as an alias (same storage and version counter, no graph edge) rather than saved:
                # a model may add into y in place (Falcon, Llama 4's MoE); backward then recomputes z (_kept)
                ctx.aliases[i] = (y.detach(), version(y))
                y = None
            kept.append(None if dora is None else y if dora[1] is None else dora[1])
            # how replay_output gives y back: kept itself, g·z from a kept z (no bias), or not at all (LoRA; or
            # under saved-tensor hooks, where reading what this node keeps would recompute it)
            ctx.outputs.append(None if dora is None or hooked else "y" if dora[1] is None
                               else "z" if quant.bias_of(layer.base) is None else None)
        ctx.save_for_backward(None if ctx.producer is not None else xd2, h, *params, *kept)
        return tuple(ys)

    @staticmethod
    def can_replay_output(ctx, k: int) -> bool:
        """Whether output k can be given back in backward from what this node keeps: DoRA's (lean.py replays a
        residual sum from it instead of keeping the sum)."""
        return ctx.outputs[k] is not None

    @staticmethod
    def replay_output(ctx, k: int) -> torch.Tensor:
        """Output k again, the same bits: the kept y itself, or g·z as the forward computed it."""
        n = len(ctx.layers)
        if ctx.outputs[k] == "y":
            y, v = ctx.aliases[k]
            if version(y) != v:
                raise AmploraError("the model modified an adapted layer's output in place after a residual sum "
                                   "read it; apply(..., path='plain') trains this model")
            return y
        kept = ctx.saved_tensors[2 + 3 * n + k]
        with no_autocast(kept):
            y = kept * ctx.dora[k][0]
        return y.view(*ctx.x_shape[:-1], y.shape[-1])

    @staticmethod
    @once_differentiable
    def backward(ctx, *gys):
        n = len(ctx.layers)
        xd2, h, *rest = ctx.saved_tensors
        params, kept = rest[:3 * n], rest[3 * n:]
        if ctx.producer is not None:  # x again, from the operands its product nodes keep
            xd2 = _replay(ctx.producer).reshape(-1, ctx.x_shape[-1])
            ctx.producer = None
        need = ctx.needs_input_grad
        c = xd2.dtype
        a_all, bts = ctx.casts  # [A_1; A_2; ...] and each Bᵀ in c, as the forward made them (no second cast)
        g = grad_gemm_dtype(c)  # see there for the dtype of the adapter-gradient GEMMs
        wide = wide_grad_b(xd2)
        grads = [None] * (3 * n)
        grad_x = grad_xd = None
        live, ghs = [], []
        hs = _columns(h, params)
        with no_autocast(xd2):
            kept, dora = _kept(ctx, kept, xd2, hs, bts)
            for i, gy in enumerate(gys):
                if gy is None:
                    continue
                b, layer = params[3 * i + 1], ctx.layers[i]
                gy2 = _cast(gy.reshape(-1, gy.shape[-1]), c)
                gz = gy2
                if kept[i] is not None:  # DoRA
                    g_c, m_scale = dora[i]
                    if need[5 + 3 * i]:  # products in c, a token-long sum accumulated in fp32 (see grad_gemm_dtype;
                        # off the CPU the reduction writes fp32 itself, with no copy and no cast kernel after it)
                        prod = gy2 * kept[i].reshape(gy2.shape)
                        grads[3 * i + 2] = (prod.sum(0, dtype=g).float() if xd2.is_cpu
                                            else prod.sum(0, dtype=torch.float32)).mul_(m_scale)
                    gz = gy2 * g_c
                ghs.append(torch.mm(gz, bts[i].t()))  # tokens × r; s is applied to the small results below
                live.append(i)
                if need[4 + 3 * i]:
                    s = layer.scaling
                    if wide:  # (hᵀ·gz)ᵀ: AccumulateGrad copies it into B's layout, but the GEMM is the faster one
                        grad_b = _mm_scaled(_cast(hs[i].t(), g), _cast(gz, g), s, like=(bts[i], b.t())).t()
                    else:  # gzᵀ·h, already in B's layout: no copy kernel to launch
                        grad_b = _mm_scaled(_cast(gz.t(), g), _cast(hs[i], g), s, like=(bts[i].t(), b), to=b.dtype)
                    grads[3 * i + 1] = _cast(grad_b, b.dtype)
                if need[0]:  # summed in place over the layers: fresh and in c, as are gz and W
                    grad_x = base_grad_input(gz, layer.base, into=grad_x)
            if not live:
                return (None, None, None, *grads)
            # the products with x and A, once for all layers: gh = [gh_1, gh_2, ...] against [A_1; A_2; ...]
            gh = ghs[0] if len(live) == 1 else torch.cat(ghs, dim=1)
            same = ctx.scale is not None
            s = ctx.scale if same else 1.0  # per-layer s (not same) ride on the rows of the stack below
            if len(live) == n and same:
                a_c = a_all
            else:
                scales = None if same else [ctx.layers[i].scaling for i in live]
                a_c = _stack([params[3 * i] for i in live], c, scales)
            if need[0] and not ctx.has_xd:
                grad_x.addmm_(gh, a_c, alpha=s)  # grad_x is fresh and in c, as are gh and A
            if need[1]:
                grad_xd = _mm_scaled(gh, a_c, s, like=(xd2,)).view(*ctx.x_shape)
            if any(need[3 + 3 * i] for i in live):  # a token-long reduction, accumulated in fp32 inside the GEMM
                # one s for the whole stack, or 1 when the layers' s differ (applied per row below)
                grad_a = _cast(_mm_scaled(_cast(gh.t(), g), _cast(xd2, g), s, like=(a_c,), to=torch.float32),
                               torch.float32)
                rows = (grad_a,) if len(live) == 1 else grad_a.split_with_sizes([params[3 * i].shape[0] for i in live])
                for i, row in zip(live, rows):
                    if need[3 + 3 * i]:
                        row = _cast(row, params[3 * i].dtype)
                        grads[3 * i] = row if same else row.mul_(ctx.layers[i].scaling)
        if grad_x is not None:
            grad_x = grad_x.view(*ctx.x_shape)  # unpacked: a torch.Size argument parses slower
        return (grad_x, grad_xd, None, *grads)


def _kept(ctx, kept, xd2, hs, bts) -> tuple[list, list]:
    """What each DoRA layer's ∂m reads, and its (g, m_scale): the kept tensor, or the aliased output y (forward).
    A y the model changed in place is no longer the output: z = x·Wᵀ + s·h·Bᵀ is recomputed instead, with z's
    factor 1/‖·‖ = m_scale·g. The aliases go with the last backward that needs them, as saved tensors do."""
    kept, dora = list(kept), list(ctx.dora)
    for i, (y, v) in ctx.aliases.items():
        if version(y) == v:
            kept[i] = y
            continue
        layer, (g_c, m_scale) = ctx.layers[i], ctx.dora[i]
        kept[i] = base_matmul(xd2, layer.base).addmm_(hs[i], bts[i], alpha=layer.scaling)
        dora[i] = (g_c, m_scale * g_c.float())
    if not graph_kept():
        ctx.aliases = {}
    return kept, dora


def _forward(x, xd, layers, params, for_backward: bool = True):
    """The forward math (for_backward=False: the outputs only, nothing prepared for a backward). Returns the
    outputs, the adapter input as 2-D, h = x·[A_1; A_2; ...]ᵀ, per layer None (LoRA) or for DoRA (g in c, the
    tensor to keep for the magnitude gradient — None meaning y itself —, the factor that turns Σ_t gy·kept into
    ∂L/∂m), and ([A_1; A_2; ...], [Bᵀ_1, ...]) in c for the backward."""
    c = x.dtype
    x2 = x.reshape(-1, x.shape[-1])
    xd2 = x2 if xd is None else xd.reshape(-1, xd.shape[-1])
    a_all = layers[0].a_c
    if a_all is None or a_all.dtype != c or any(layer.a_c is not a_all for layer in layers[1:]):
        a_all = _stack(params[0::3], c)
    h = F.linear(xd2, a_all)  # x·[A_1; A_2; ...]ᵀ (the same GEMM as mm with Aᵀ, one Python call fewer)
    ys, doras, bts = [], [], []
    for i, (layer, h_i) in enumerate(zip(layers, _columns(h, params))):
        b, magnitude = params[3 * i + 1], params[3 * i + 2]
        # z in x's shape, so that no output is a view: a model may add into one in place (Falcon: mlp_output +=)
        z = base_matmul(x, layer.base)
        bts.append(_bt(b, c) if layer.bt is None or layer.bt.dtype != c else layer.bt)
        # z is fresh and in c, as are h and Bᵀ; s rides on the GEMM
        z.view(-1, z.shape[-1]).addmm_(h_i, bts[-1], alpha=layer.scaling)
        bias = quant.bias_of(layer.base)
        bias_c = None if bias is None else _cast(bias, c)
        if magnitude is None:
            ys.append(z if bias_c is None else z.add_(bias_c))
            doras.append(None)
            continue
        norm = layer.norm
        g_c = dora_scale(magnitude, norm, c) if layer.g is None else layer.g
        if not for_backward:  # generate / eval: just the output
            ys.append(z.mul_(g_c) if bias_c is None else torch.addcmul(bias_c, z, g_c))
            continue
        # z = y / g is recoverable without a bias and with no zero in g (the fast layer checks that once per
        # state of its weights; checked here otherwise)
        zero_free = layer.g_zero_free
        if bias_c is None and zero_free is None:
            zero_free = not bool((g_c == 0).any())
        if bias_c is None and zero_free:
            ys.append(z.mul_(g_c))
            doras.append((g_c, None, 1 / (g_c.float() * norm)))
        else:
            ys.append(z * g_c if bias_c is None else torch.addcmul(bias_c, z, g_c))
            doras.append((g_c, z, 1 / norm if layer.norm_inv is None else layer.norm_inv))
    return ys, xd2, h, doras, (a_all, bts)


def dora_scale(magnitude: torch.Tensor, norm: torch.Tensor, c: torch.dtype) -> torch.Tensor:
    """g = m / ‖W + s·BA‖_row: fp32, cast once to meet compute-dtype activations (S000). The fast layer keeps it
    per state of its weights (kept.py) and hands it to the node (Layer.g), after its zero check has looked at the
    very same g."""
    return (magnitude / norm).to(c)


def _stack(a_list, c: torch.dtype, scales=None) -> torch.Tensor:
    """[A_1; A_2; ...] in c (A itself when there is one). With per-layer `scales` (layers whose s differ), each
    A_i is scaled by s_i in fp32 first, so one GEMM applies every layer's s."""
    if scales is not None:
        a_list = [a.float() * si for a, si in zip(a_list, scales)]
    return _cast(a_list[0] if len(a_list) == 1 else torch.cat(a_list), c)  # one cast for the stack


def _columns(h: torch.Tensor, params) -> tuple[torch.Tensor, ...]:
    """Each layer's r columns of h = x·[A_1; A_2; ...]ᵀ (views)."""
    return (h,) if len(params) == 3 else h.split_with_sizes([a.shape[0] for a in params[0::3]], dim=1)


def wide_grad_b(t: torch.Tensor) -> bool:
    """∂B's GEMM layout. On CPU the r × out result ((hᵀ·gz)ᵀ) is computed faster than out × r for
    SmolLM2's 1536-wide layers, which outweighs AccumulateGrad's copy of it into B's layout; elsewhere gzᵀ·h is
    in B's layout already, which saves that copy: one kernel launch per layer in a launch-bound GPU step."""
    return t.is_cpu  # (is_cpu: t.device builds a device object, for every node of every step)


def _mm_scaled(m1: torch.Tensor, m2: torch.Tensor, s: float, like: tuple[torch.Tensor, ...],
               to: torch.dtype | None = None) -> torch.Tensor:
    """s·(m1·m2) as one GEMM: s rides on it (alpha) instead of a second pass over the result. `like` offers
    tensors of the result's shape; one of m1's dtype serves as addmm's input, whose values beta=0 never reads.
    to=float32 for half-precision operands: where torch can (CUDA), the GEMM writes its fp32 accumulator itself,
    which saves the cast kernel after it (one per adapted layer and node in every backward)."""
    if to == torch.float32 and m1.dtype != to and m1.is_cuda and _fp32_zero(m1) is not None:
        return matmul_fp32(m1, m2, s)
    if s != 1:
        for t in like:
            if t.dtype == m1.dtype:
                return torch.addmm(t, m1, m2, beta=0, alpha=s)
    out = torch.mm(m1, m2)
    return out if s == 1 else out.mul_(s)


# per (CUDA device, operand dtype): addmm's fp32 input, or None where addmm takes no out_dtype for them
_FP32_ZERO: dict[tuple, torch.Tensor | None] = {}


def _fp32_zero(t: torch.Tensor) -> torch.Tensor | None:
    """A 0-dim fp32 zero on t's device when addmm there takes out_dtype=float32 for t's dtype (tried once per
    device and dtype: a torch without it raises, and the result is checked), else None."""
    i = (t.get_device(), t.dtype)
    if i not in _FP32_ZERO:
        zero = torch.zeros((), dtype=torch.float32, device=t.device)
        ones = torch.ones(2, 2, dtype=t.dtype, device=t.device)
        try:
            out = torch.addmm(zero, ones, ones, beta=0, alpha=2.0, out_dtype=torch.float32)
            ok = out.dtype == torch.float32 and (torch.cuda.is_current_stream_capturing() or bool((out == 4).all()))
        except (RuntimeError, TypeError, NotImplementedError):
            ok = False
        _FP32_ZERO[i] = zero if ok else None
    return _FP32_ZERO[i]


def matmul_fp32(m1: torch.Tensor, m2: torch.Tensor, s: float = 1.0) -> torch.Tensor:
    """s·(m1·m2) in fp32 for operands of any one float dtype: for half-precision operands on CUDA the GEMM writes its
    fp32 accumulator itself (addmm's out_dtype), elsewhere the product is cast (a GEMM on the CPU, or a torch
    without out_dtype)."""
    if m1.dtype != torch.float32 and m1.is_cuda:
        zero = _fp32_zero(m1)
        if zero is not None:
            return torch.addmm(zero, m1, m2, beta=0, alpha=s, out_dtype=torch.float32)
    out = torch.mm(m1, m2)
    out = out if out.dtype == torch.float32 else out.float()
    return out if s == 1 else out.mul_(s)


def _cast(t: torch.Tensor, c: torch.dtype) -> torch.Tensor:
    return t if t.dtype == c else t.to(c)


def _bt(b: torch.Tensor, c: torch.dtype) -> torch.Tensor:
    """Bᵀ (r × out) in c. A half-precision copy is made contiguous in that layout: half-precision CPU GEMMs are
    several times slower with B's own layout (fp32 ones do not care, so fp32 takes the free transposed view)."""
    return b.t() if b.dtype == c else b.t().to(c, memory_format=torch.contiguous_format)


def _recomputable_product(x: torch.Tensor, hooked: bool):
    """The autograd node of x when x can be replayed bit for bit from tensors autograd keeps anyway, so backward
    recomputes x instead of keeping a second copy: the output of a lean RMSNorm / SwiGLU node (lean.py), or a
    product whose operands are saved — SwiGLU's act(gate) * up and an fp32 RMSNorm's weight * (h * rsqrt(var))
    when the transformers modules were kept (apply(lean_modules=False)). Not under saved-tensor hooks
    (checkpointing, offloading), where unpacking another node's tensors would cost a recompute or a copy."""
    node = x.grad_fn
    if node is None or version(x) != 0:
        return None
    if hooked:
        return None
    return node if lean.replayable(node) or _replayable(node, depth=2) else None


def _replayable(node, depth: int) -> bool:
    """An out-of-place tensor·tensor product whose operands were each saved by it or are such products."""
    operands = product_operands(node) if depth else None
    if operands is None:  # not such a product, or its saved tensors are gone: just save x
        return False
    inputs = node.next_functions  # (producer node, output index) of self and other
    return all(t is not None or (inputs[i][1] == 0 and _replayable(inputs[i][0], depth - 1))
               for i, t in enumerate(operands))


def _replay(node) -> torch.Tensor:
    if lean.replayable(node):
        return lean.replay(node)
    a, b = (t if t is not None else _replay(node.next_functions[i][0])
            for i, t in enumerate(product_operands(node)))
    return a * b  # the very op of the forward on the very operands: the same bits


def adapter_linears(x, xd, layers: tuple[Layer, ...], params: tuple) -> list[torch.Tensor]:
    """The outputs of `layers` (one node for all when grad is needed); params as AdapterLinear takes them."""
    if torch.is_grad_enabled() and (x.requires_grad or any(p is not None and p.requires_grad for p in params)):
        return list(AdapterLinear.apply(x, xd, layers, *params))
    with no_autocast(x):  # generate / eval: the same math without building a graph node
        return _forward(x, xd, layers, params, for_backward=False)[0]


def adapter_linear(x, xd, a, b, magnitude, norm, base, scaling) -> torch.Tensor:
    """One adapted layer: base(x) + s·xd·Aᵀ·Bᵀ (or DoRA with magnitude and norm)."""
    return adapter_linears(x, xd, (Layer(base, scaling, norm),), (a, b, magnitude))[0]


def supported(base: nn.Module, dora: bool, dropout: bool) -> bool:
    """The fused node covers a frozen base (plain or NF4); DoRA with dropout keeps the autograd path."""
    bias = quant.bias_of(base)
    frozen = not quant.weight_of(base).requires_grad and (bias is None or not bias.requires_grad)
    return frozen and not (dora and dropout)


