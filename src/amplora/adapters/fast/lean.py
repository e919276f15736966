"""Memory-lean, bit-identical stand-ins for the two parts of a Llama-style block that keep more than backward needs.

Adapter training saves each adapted layer's input for ∂A. Two of those inputs are elementwise results of tensors
that can be kept more cheaply, so amplora replaces their modules, at `apply` time, with ones that keep only what
their own backward needs and let the adapter nodes replay their output in backward (node._replay):

- RMSNorm (Llama, Mistral, Qwen2/3, SmolLM...): autograd over the transformers module keeps the fp32 upcast of its
  input (in a bf16 model, twice the bytes of the input) and the adapters behind it (q/k/v, gate/up) keep its
  output once more. `LeanRMSNorm` keeps the input in its own dtype and one fp32 scale per token.
- SwiGLU MLP: autograd keeps gate, act(gate) and up; the down_proj adapter keeps act(gate)·up. `LeanSwiGLU`
  keeps gate and up; act(gate) and the product are recomputed in backward (elementwise, a few ms per step).

A norm's input is often a residual sum, h + branch, whose two operands are kept already: h as the input of the
norm before it (Llama: norm → attention → h + o_proj(...) → norm → MLP → ... + down_proj(...) → norm) and the
branch as a DoRA adapter's output, which DoRA keeps for its magnitude gradient. `LeanRMSNorm` then does not keep
the sum; it replays it in backward (`_input`): one add, the same bits. A chain of such sums runs down to the
first norm that keeps its input. The first backward to need one of them replays the chain once, and each norm
holds its sum until its own backward: at most what forward no longer keeps, and only from then on (SmolLM2-135M,
DoRA, 4x256: 135 MB fp32 fewer at the forward's peak, for 60 adds in backward).

The forward runs the very ops of the transformers code, so outputs are the same bits; `install` checks this on a
probe input for every module before replacing it and leaves any module that does not match (a Gemma-style
(1 + w) norm, a GELU MLP) as it is. Parameter names do not change. Weights that require grad (a user training
the norms) make the modules fall back to plain autograd.
"""
from __future__ import annotations

import weakref

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd.graph import get_gradient_edge

from amplora.adapters.fast.torch_private import (function_of, no_autocast, once_differentiable, plain_sum_inputs,
                                                  saved_tensor_hooks_active)
from amplora.adapters.targets import set_module

_last_norm = None  # a weak reference to the newest lean RMSNorm node: a graph must not live on through it


def _rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    """transformers' LlamaRMSNorm.forward, op for op; also returns the fp32 scale rsqrt(mean(x²) + eps)."""
    x32 = x.to(torch.float32)
    rstd = torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
    return weight * (x32 * rstd).to(x.dtype), rstd


def _sum_source(x: torch.Tensor):
    """How to replay x in backward when it is a residual sum a + b (a + b, not a view of it) of the input of the
    newest lean norm node and an output that its node can replay: (that norm node, the branch's node, its output
    index, whether the norm's input is the first operand). None otherwise: the norm keeps x."""
    last = _last_norm() if _last_norm is not None else None
    if last is None or last.input_edge[0] is None:
        return None
    inputs = plain_sum_inputs(x.grad_fn)
    if inputs is None:
        return None
    (n0, i0), (n1, i1) = inputs
    edge = last.input_edge
    if n0 is edge[0] and i0 == edge[1]:
        branch, first = (n1, i1), True
    elif n1 is edge[0] and i1 == edge[1]:
        branch, first = (n0, i0), False
    else:
        return None
    can = getattr(function_of(branch[0]), "can_replay_output", None)
    return (last, *branch, first) if can is not None and can(branch[0], branch[1]) else None


def _input(ctx) -> torch.Tensor:
    """A norm node's input: kept, or replayed as the residual sum it was (see _sum_source), down the chain of
    replayed sums to the first kept input. Each replayed sum stays with its node until that node's backward."""
    chain = []
    while ctx.x_cache is None and ctx.source is not None:
        chain.append(ctx)
        ctx = ctx.source[0]
    x = ctx.x_cache if ctx.x_cache is not None else ctx.saved_tensors[0]
    for node in reversed(chain):
        _, branch, k, first = node.source
        b = function_of(branch).replay_output(branch, k)
        x = node.x_cache = torch.add(x, b) if first else torch.add(b, x)  # the forward's op on the same operands
    return x


class _RMSNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, norm):
        with no_autocast(x):
            y, rstd = _rms_norm(x, norm.weight, norm.variance_epsilon)
        ctx.norm = norm  # the weight is read again in backward (FSDP2 re-gathers it there), not saved
        # what a later residual sum's operand is matched against (a leaf's: its gradient accumulator); nothing
        # under saved-tensor hooks, where reading what this node keeps would recompute it (checkpointing)
        hooked = saved_tensor_hooks_active()
        ctx.input_edge = ((None, 0) if hooked else (x.grad_fn, x.output_nr) if x.grad_fn is not None
                          else tuple(get_gradient_edge(x))[:2])
        ctx.source = _sum_source(x) if norm.replay_sums and not hooked else None
        ctx.x_cache = ctx.replayed = None
        ctx.save_for_backward(x if ctx.source is None else None, rstd)
        return y

    @staticmethod
    def replay(ctx) -> torch.Tensor:
        """The forward output again, bit for bit, from what this node keeps (for an adapter behind it). Computed
        once for all its consumers (q, k, v; gate, up), whose backward all run before this node's, which drops it."""
        if ctx.replayed is None:
            x, rstd = ctx.saved_tensors
            x = _input(ctx) if x is None else x
            with no_autocast(x):
                ctx.replayed = ctx.norm.weight * (x.to(torch.float32) * rstd).to(x.dtype)
        return ctx.replayed

    @staticmethod
    @once_differentiable
    def backward(ctx, gy):
        x, rstd = ctx.saved_tensors  # once: under checkpointing's hooks a second unpack is an error
        x = _input(ctx) if x is None else x
        ctx.replayed = ctx.x_cache = None
        with no_autocast(gy):
            # ∂/∂x of w·(x·r) with r = rsqrt(mean(x²) + eps), in fp32: r·(g − x̂·mean(g·x̂)), x̂ = x·r
            g = (gy * ctx.norm.weight).to(torch.float32)  # as autograd does: the product in gy's dtype, then up
            xhat = x.to(torch.float32) * rstd
            grad = (g - xhat * (g * xhat).mean(-1, keepdim=True)).mul_(rstd)
        return grad.to(x.dtype), None


class LeanRMSNorm(nn.Module):
    """A transformers RMSNorm (y = w · (x·rsqrt(mean(x²)+eps)).to(x.dtype), statistics in fp32) with lean saves."""

    def __init__(self, norm: nn.Module):
        super().__init__()
        self.weight, self.variance_epsilon = norm.weight, norm.variance_epsilon
        self.replay_sums = True  # residual-sum replay (module docstring); False keeps the sum (tests compare)
        self.__dict__["original"] = norm  # not a submodule: given back by `restore`

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad and not self.weight.requires_grad
                and not torch.compiler.is_compiling()):  # a compiled graph plans its own saves
            global _last_norm
            y = _RMSNormFn.apply(x, self)
            _last_norm = weakref.ref(y.grad_fn)
            return y
        return _rms_norm(x, self.weight, self.variance_epsilon)[0]

    def extra_repr(self) -> str:
        return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}, replaces {type(self.original).__name__}"


class _SwiGLUFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gate, up):
        with no_autocast(gate):
            y = F.silu(gate) * up
        ctx.save_for_backward(gate, up)
        return y

    @staticmethod
    def replay(ctx) -> torch.Tensor:
        """The output again for the adapter behind it (down_proj). act(gate) is kept from here to this node's
        backward, which runs right after that adapter's: it needs act(gate) too."""
        gate, up = ctx.saved_tensors
        with no_autocast(gate):
            ctx.act = F.silu(gate)
            return ctx.act * up

    @staticmethod
    @once_differentiable
    def backward(ctx, gy):
        gate, up = ctx.saved_tensors
        act, ctx.act = getattr(ctx, "act", None), None
        with no_autocast(gy):
            # what autograd over silu(gate) * up computes, with act(gate) recomputed instead of kept; the
            # recomputed act is this node's own tensor, so grad_up is written into it (x·y and y·x are the same bits)
            act = F.silu(gate) if act is None else act
            grad_up = act.mul_(gy) if act.dtype == gy.dtype else gy * act
            grad_gate = torch.ops.aten.silu_backward(gy * up, gate)
        return grad_gate, grad_up


class LeanSwiGLU(nn.Module):
    """A transformers SwiGLU MLP, down(silu(gate(x)) · up(x)), with lean saves; the projections are the same
    modules (and keep their names), so adapters go into them as before."""

    def __init__(self, mlp: nn.Module):
        super().__init__()
        self.gate_proj, self.up_proj, self.down_proj = mlp.gate_proj, mlp.up_proj, mlp.down_proj
        self.__dict__["original"] = mlp  # not a submodule: given back by `restore`

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_proj(x), self.up_proj(x)
        if torch.is_grad_enabled() and (gate.requires_grad or up.requires_grad) and not torch.compiler.is_compiling():
            return self.down_proj(_SwiGLUFn.apply(gate, up))
        return self.down_proj(F.silu(gate) * up)

    def extra_repr(self) -> str:
        return f"replaces {type(self.original).__name__}"


def replayable(node) -> bool:
    """Whether `node` (a grad_fn) is one of the nodes here, whose output an adapter can replay."""
    return function_of(node) in (_RMSNormFn, _SwiGLUFn)


def replay(node) -> torch.Tensor:
    return function_of(node).replay(node)


def _is_rms_norm(m: nn.Module) -> bool:
    return (type(m).__name__.endswith("RMSNorm") and isinstance(getattr(m, "weight", None), nn.Parameter)
            and isinstance(getattr(m, "variance_epsilon", None), float) and m.weight.dim() == 1)


def _is_swiglu(m: nn.Module) -> bool:
    return (all(isinstance(getattr(m, n, None), nn.Module) for n in ("gate_proj", "up_proj", "down_proj"))
            and type(getattr(m, "act_fn", None)).__name__ in ("SiLU", "SiLUActivation"))


def _has_hooks(m: nn.Module) -> bool:
    return bool(m._forward_hooks or m._forward_pre_hooks or m._backward_hooks or m._backward_pre_hooks
                or hasattr(m, "_hf_hook"))


def _same_output(old: nn.Module, new: nn.Module, width: int, dtype: torch.dtype, device) -> bool:
    """The replacement gives the same bits as the module it replaces on a probe input (forward and no grad)."""
    gen = torch.Generator().manual_seed(0)
    probe = (torch.randn(2, 3, width, generator=gen) * 3).to(device=device, dtype=dtype)
    try:
        with torch.no_grad():
            return bool(torch.equal(old(probe), new(probe)))
    except Exception:  # a module whose forward does not take a plain tensor is not one of these
        return False


def install(model: nn.Module) -> list[str]:
    """Replace every RMSNorm and SwiGLU MLP that its lean version reproduces exactly; returns their names."""
    replaced = []
    for name, m in list(model.named_modules()):
        if _has_hooks(m):
            continue  # the stand-in would drop them (accelerate's device-map offloading, a user's hook)
        if _is_rms_norm(m):
            new = LeanRMSNorm(m)
            width, dtype = m.weight.shape[0], m.weight.dtype
        elif _is_swiglu(m):
            new = LeanSwiGLU(m)
            w = getattr(m.gate_proj, "weight", None)
            width = getattr(m.gate_proj, "in_features", None)
            dtype = getattr(m.gate_proj, "compute_dtype", None) or (w.dtype if w is not None else None)
            if width is None or dtype is None or not dtype.is_floating_point:
                continue
        else:
            continue
        device = next(m.parameters()).device
        if _same_output(m, new, width, dtype, device):
            set_module(model, name, new)
            replaced.append(name)
    return replaced


def restore(model: nn.Module) -> None:
    """Put the transformers modules back (merge does, so that it returns a plain transformers model); an MLP
    gets back whatever its projections are now (merged nn.Linear layers)."""
    for name, m in list(model.named_modules()):
        if isinstance(m, LeanSwiGLU):
            for proj in ("gate_proj", "up_proj", "down_proj"):
                setattr(m.original, proj, getattr(m, proj))
        if isinstance(m, (LeanRMSNorm, LeanSwiGLU)):
            set_module(model, name, m.original)

