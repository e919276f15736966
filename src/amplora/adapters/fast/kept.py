"""What the fast layers keep per state of the weights — A and Bᵀ in the compute dtype, DoRA's row norm and g — made
for every stale layer of a model at once.

Each adapted layer's node needs A (for a sibling group, the stack [A_1; A_2; ...]) and Bᵀ in the compute dtype c,
while the masters stay fp32; a DoRA layer also needs ‖W + s·BA‖_row, g = m / norm in c and 1 / norm. Made in every
call, that is a `cat` and a cast per node, a cast per layer and a dozen small ops per DoRA layer: about 390 kernel
launches per LoRA step on SmolLM2's 30 layers, some 3,000 more for DoRA, in a GPU step that the host's launches
bound. Instead each FastLayer keeps them (`FastLayer.kept`, a Kept) keyed on its `weights_key()`, and the first
layer that finds its own stale refreshes every stale layer of the model: the casts as one `torch._foreach_copy_`,
DoRA's elementwise steps as one multi-tensor op each (dora.norms). The same copies serve training, evaluation and
generation; micro-batches of one optimizer step and a checkpointed recompute reuse them.

Layouts: a group's stack is one buffer of the group (`Siblings.stack`) and each member's A is a view of its rows;
Bᵀ is a view of a copy in B's own layout (cuBLAS reads either), except for half precision on the CPU, whose GEMMs
are several times slower on that layout, where the copy is Bᵀ made contiguous (node._bt). Where c is the masters'
own dtype, a lone layer needs no copy at all (the node reads A and B.t() directly).

Layers other than the caller join a refresh only when the node runs them (not merged or disabled, not DoRA with
dropout, whose plain path makes its own norm) and their tensors are plain ones: under FSDP2 the layers of other
units hold sharded DTensors until their own forward, and each refreshes then.
"""
from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn as nn

from amplora.adapters import dora as dora_mod, quant


class Kept(NamedTuple):
    key: tuple  # the layer's weights_key() when these were made
    a_c: torch.Tensor | None  # A in c (a lone layer's copy, or its rows of the group's stack); None: A itself
    bt: torch.Tensor | None  # Bᵀ in c; None: B.t() itself
    stack: torch.Tensor | None  # its group's [A_1; A_2; ...] in c, or None for a layer that computes alone
    buffers: tuple  # (A copy, B copy) of its own, reused by the next refresh when they still fit
    dora: tuple | None  # DoRA: (norm, g free of zeros (checked on the CPU only), g in c, 1 / norm)


def refresh(clock, caller) -> None:
    """Bring every stale layer of `clock`'s model up to date with its weights (`caller`, whose forward asks, always
    takes part)."""
    stale, stacks = [], {}
    for fast in clock.layers:
        ts = fast.tensors()
        if fast is not caller and (not fast.covered()  # what the plain path runs needs nothing kept
                                   or not all(type(t) in _PLAIN for t in ts) and not quant.is_nf4_weight(ts[2])):
            continue
        key = fast.weights_key(ts)
        group = fast.siblings
        if group not in stacks:  # one stack per group, made or checked once per refresh
            stacks[group] = _group_stack(fast)
        stack = stacks[group]
        kept = fast.kept
        if kept is None or kept.key != key or kept.stack is not stack:
            stale.append((fast, key, stack, ts))
    dsts, srcs = [], []
    casts = [_casts(fast, stack, ts, dsts, srcs) for fast, _, stack, ts in stale]
    _copy(dsts, srcs)
    doras = [(fast, a_c) for (fast, *_), (a_c, _, _) in zip(stale, casts) if fast.layer.dora]
    terms = iter(_dora_terms(doras) if doras else ())
    for (fast, key, stack, _), (a_c, bt, buffers) in zip(stale, casts):
        dora = None
        if fast.layer.dora:
            norm, g_c, inv = next(terms)
            # the node recovers z as y / g where g has no zero; off the CPU the check would synchronize, once per
            # layer and step (which serialized host and GPU on an H100: bf16 DoRA 0.38 s/step against 0.24 keeping
            # z; bench/speed.py --device cuda --batch 8 --seq 1024), so z is kept there
            dora = (norm, not bool((g_c == 0).any()) if g_c.is_cpu else False, g_c, inv)
        fast.kept = Kept(key, a_c, bt, stack, buffers, dora)


def _casts(fast, stack, ts: tuple, dsts: list, srcs: list) -> tuple:
    """(A in c, Bᵀ in c, the layer's own buffers) for `fast` (ts: its tensors()), adding the copies to make to dsts
    and srcs."""
    layer, kept = fast.layer, fast.kept
    a, b = ts[0], ts[1]
    c = layer.precision.compute
    a_buf, b_buf = (None, None) if kept is None else kept.buffers
    if stack is not None and kept is not None and kept.stack is stack and kept.a_c.shape == a.shape:
        a_c = kept.a_c  # its rows of the same stack as before
    elif stack is not None:  # its rows of the group's stack
        start = 0
        for member in fast.siblings.members:
            if member is layer:
                break
            start += member.adapter_tensors()[0].shape[0]
        a_c = stack[start:start + a.shape[0]]
    else:
        a_c = a_buf = None if a.dtype == c else _fit(a_buf, a.shape, c, a.device)
    if b.dtype == c:
        bt = b_buf = None
    elif b.is_cpu:  # half-precision CPU GEMMs want Bᵀ contiguous (node._bt)
        bt = b_buf = _fit(b_buf, (b.shape[1], b.shape[0]), c, b.device)
        b = b.t()
    else:
        b_buf = _fit(b_buf, b.shape, c, b.device)
        bt = b_buf.t()
    for dst, src in ((a_c, a), (b_buf, b)):
        if dst is not None:
            dsts.append(dst)
            srcs.append(src)
    return a_c, bt, (a_buf, b_buf)


def _dora_terms(doras: list) -> list[tuple]:
    """(norm, g in c, 1 / norm) for each DoRA layer of `doras` ((FastLayer, A in c or None) pairs), the g of the
    layer's last refresh reused as the buffer of its cast when it fits."""
    layers = [fast.layer for fast, _ in doras]
    with torch.no_grad():
        norms = dora_mod.norms(layers, [a_c for _, a_c in doras])
        gs = torch._foreach_div([layer._parameters["lora_magnitude_vector"] for layer in layers], norms)
        invs = torch._foreach_reciprocal(norms)
    dsts, srcs, g_cs = [], [], []
    for (fast, _), layer, g in zip(doras, layers, gs):
        c = layer.precision.compute
        if g.dtype != c:  # fp32 g cast once to meet compute-dtype activations (S000)
            old = None if fast.kept is None or fast.kept.dora is None else fast.kept.dora[2]
            dsts.append(_fit(old, g.shape, c, g.device))
            srcs.append(g)
            g = dsts[-1]
        g_cs.append(g)
    _copy(dsts, srcs)
    return list(zip(norms, g_cs, invs))


def _copy(dsts: list, srcs: list) -> None:
    """All the casts as one multi-tensor copy. It writes into the copies only: no weight's version or storage
    changes, so the keys taken before stay valid."""
    if dsts:
        with torch.no_grad():
            torch._foreach_copy_(dsts, srcs)


def _group_stack(fast) -> torch.Tensor | None:
    """The stack buffer of fast's sibling group ([A_1; A_2; ...] in c), made anew when the members' A changed shape,
    dtype or device; None for a layer that computes alone (no group, or a group that runs alone)."""
    group = fast.siblings
    if group is None or not group.enabled:
        return None
    a_list = [m.adapter_tensors()[0] for m in group.members]
    c = fast.layer.precision.compute
    shape = (sum(a.shape[0] for a in a_list), a_list[0].shape[1])
    stack = group.stack
    if stack is None or stack.shape != shape or stack.dtype != c or stack.device != a_list[0].device:
        stack = group.stack = torch.empty(shape, dtype=c, device=a_list[0].device)
    return stack


def _fit(old: torch.Tensor | None, shape, dtype, device) -> torch.Tensor:
    """`old` when it still fits; a new buffer otherwise."""
    if old is not None and old.shape == shape and old.dtype == dtype and old.device == device:
        return old
    return torch.empty(shape, dtype=dtype, device=device)


_PLAIN = (torch.Tensor, nn.Parameter)  # not an FSDP2 shard (DTensor) or another tensor subclass
