"""Every use of torch beyond its public autograd API that the fast path makes, in one place.

The fused node and the lean modules read a few things torch does not promise to keep: which Function made an
autograd node, the operands a product node saved, the alpha of an add node, whether saved-tensor hooks or any
autocast region are active, a tensor's version counter. Each is read here, by one function, and nowhere else.
tests/adapters/fast/test_torch_private.py checks each of them on the installed torch and fails loudly when one
changes; `available()` is the same check at run time: `apply` consults it and chooses the plain path
(adapters/layers.py) when it fails, so a torch that changed them runs slower, never wrong.
"""
from __future__ import annotations

import contextlib
import functools
import operator

import torch
from torch.autograd.function import once_differentiable as torch_once_differentiable

_NO_REGION = contextlib.nullcontext()  # reusable: it holds no state

# whether any autocast region is on, for any device; without it, every call asks about the tensor's device
_any_autocast = getattr(torch._C, "_is_any_autocast_enabled", lambda: True)
# the innermost saved-tensor hooks (None when none are set); without it, the nodes keep their own inputs
_saved_tensor_hooks = getattr(torch._C._autograd, "_top_saved_tensors_default_hooks", None)

# whether the running backward keeps the graph for another (retain_graph=True)
_keep_graph = getattr(torch._C._autograd, "_get_current_graph_task_keep_graph", None)

# a tensor's version counter (bumped by every in-place write through autograd's view of it); a C-level getter:
# it is read for every adapted layer of every forward
version = operator.attrgetter("_version")


def no_autocast(t: torch.Tensor):
    """Autocast off (a caller's region must not re-type a node's math, and forward and replay must agree); free
    when none is active."""
    if not _any_autocast():  # the common case, answered without reading t's device
        return _NO_REGION
    dev = t.device.type
    return torch.autocast(dev, enabled=False) if torch.is_autocast_enabled(dev) else _NO_REGION


def saved_tensor_hooks_active() -> bool:
    """Whether saved-tensor hooks (checkpointing, offloading) are on: there, unpacking another node's tensors would
    cost a recompute or a copy, so nodes keep their own inputs."""
    return _saved_tensor_hooks is None or _saved_tensor_hooks(False) is not None


def graph_kept() -> bool:
    """Inside a backward: whether the graph is kept for another backward (then a node must keep what it holds)."""
    return _keep_graph is None or bool(_keep_graph())


def once_differentiable(backward):
    """torch's once_differentiable, minus its no_grad region when grad is off already, as it is in every backward
    but a create_graph=True one (that one still gets torch's handling: an error if differentiated again). It runs
    for every node of every step, so the region's cost (a few µs) counts where the host bounds the step."""
    guarded = torch_once_differentiable(backward)

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        return guarded(ctx, *grads) if torch.is_grad_enabled() else backward(ctx, *grads)

    return wrapper


def function_of(node):
    """The autograd.Function class whose `apply` made `node` (a grad_fn), or None for a built-in node."""
    return getattr(node, "_forward_cls", None)


def product_operands(node):
    """(self, other) as an out-of-place tensor·tensor product node saved them (None where it saved nothing: a
    scalar, or an operand its gradient does not need), or None when `node` is not such a product or its saved
    tensors are freed already."""
    if node is None or type(node).__name__ != "MulBackward0":
        return None
    try:
        return node._saved_self, node._saved_other
    except (RuntimeError, AttributeError):  # freed already, or a torch without these attributes
        return None


_AddBackward = type((torch.ones(1, requires_grad=True) + torch.ones(1)).grad_fn)


def plain_sum_inputs(node):
    """The two input edges ((node, index), (node, index)) of `node` when it is a + b with alpha 1, else None."""
    if type(node) is not _AddBackward or getattr(node, "_saved_alpha", None) != 1:
        return None
    return node.next_functions


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether everything above works on this torch, probed once on a tiny graph."""
    try:
        a, b = torch.ones(2, requires_grad=True), torch.full((2,), 2.0, requires_grad=True)
        ops = product_operands((a * b).grad_fn)

        class _Probe(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g

        return (ops is not None and ops[0] is not None and torch.equal(ops[0], a) and torch.equal(ops[1], b)
                and plain_sum_inputs((a + b).grad_fn) is not None and plain_sum_inputs((a - b).grad_fn) is None
                and function_of(_Probe.apply(a).grad_fn) is _Probe and _saved_tensor_hooks is not None
                and not saved_tensor_hooks_active() and isinstance(version(a), int)
                and hasattr(torch._C, "_is_any_autocast_enabled") and _keep_graph is not None)
    except Exception:  # any change in these internals: the plain path
        return False
