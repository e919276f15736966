"""Adapted layers that read the same input — q/k/v of an attention block, gate/up of a SwiGLU MLP — run as one
autograd node (node.AdapterLinear with several layers).

Why: on CPU the slow part of an adapter is its r-wide GEMMs, x·Aᵀ forward and the two products with A backward.
For three layers fed the same x, one 3r-wide GEMM costs little more than one r-wide GEMM, and the three input
gradients are summed in place instead of by autograd. Measured on SmolLM2's q/k/v at 4x256 in bf16: the adapter
overhead over the frozen layers went from 6.3 to 2.8 ms per block.

How, without touching the model's code: the model still calls q_proj(x), k_proj(x), v_proj(x) one by one. The
first call computes all three outputs in one node and keeps the other two, tagged with the very tensor x (and its
version and the grad mode); a sibling called next with that same x gets its output, and anything else makes the
sibling compute alone. A model that feeds siblings different inputs (cross-attention) is noticed on its first
forward, and its siblings run alone from then on. A kept output that nobody collects is dropped at the group's
next call.
"""
from __future__ import annotations

import torch
import torch.nn as nn

from amplora.adapters.fast import node
from amplora.adapters.fast.layer import FastLayer
from amplora.adapters.fast.torch_private import version

# leaf names of layers that, in the models that use them, are always called on the same input
SETS = (("q_proj", "k_proj", "v_proj"), ("gate_proj", "up_proj"), ("query", "key", "value"), ("w1", "w3"))


class Siblings:
    def __init__(self, members: list[nn.Module]):
        self.members = members
        self.enabled = True  # False once the model was seen feeding them different inputs
        self.pending = None  # (x, x._version, grad mode, {member: its output}) from the last group call
        self.stack = None  # [A_1; A_2; ...] in the compute dtype (kept.py)

    def output(self, member: nn.Module, x: torch.Tensor) -> torch.Tensor | None:
        """member's output for x, or None: the member then computes alone."""
        pending, self.pending = self.pending, None
        if pending is not None and member in pending[3]:
            src, v, grad, outs = pending
            if src is x and v == version(x) and grad == torch.is_grad_enabled():
                y = outs.pop(member)
                if outs:
                    self.pending = pending
                return y
            self.enabled = False  # they do not share their input here: each layer runs alone from now on
            return None
        if not self.enabled:
            return None
        layers, params = [], []
        for m in self.members:
            fast = m.fast
            if not fast.fusable():
                return None
            layer, ps = fast.node_args(grouped=True)
            layers.append(layer)
            params += ps
        # every member computes in the same policy dtype (link checks)
        ys = node.adapter_linears(member.precision.to_compute(x), None, tuple(layers), tuple(params))
        self.pending = (x, version(x), torch.is_grad_enabled(),
                        {m: y for m, y in zip(self.members, ys) if m is not member})
        return ys[self.members.index(member)]


def link(model: nn.Module) -> int:
    """Group the sibling adapter layers of `model` that are on the fast path; returns how many groups. Siblings must
    agree on input width and precision policy (apply gives every layer the same)."""
    groups = 0
    for parent in model.modules():
        for names in SETS:
            members = [m for m in (getattr(parent, n, None) for n in names) if _fast(m)]
            if len(members) < 2 or len({(m.in_features, m.precision) for m in members}) != 1:
                continue
            group = Siblings(members)
            for m in members:
                m.fast.siblings = group
            groups += 1
    return groups


def unlink(model: nn.Module) -> None:
    """Undo `link`: every adapter layer of `model` runs alone (the reference the tests and the bench compare with)."""
    for m in model.modules():
        if _fast(m):
            m.fast.siblings = None


def _fast(m: nn.Module) -> bool:
    return isinstance(getattr(m, "fast", None), FastLayer)
