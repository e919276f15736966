"""One adapted layer on the fast path: what it hands the fused node, and what it keeps per state of its weights.

`FastLayer(layer, clock)` is attached to a LoraLinear as `layer.fast` (by `apply` for a model whose path is
"fused", or by the layer itself when built alone). `forward(x)` returns the layer's output from the fused node
(node.py), alone or with its siblings (siblings.py), or None for a call the node does not cover: the layer then
runs its plain forward.

What it keeps (kept.py): A and Bᵀ in the compute dtype, and for DoRA the row norm, g and whether g has a zero,
made for every stale layer of the model at once and shared by training, evaluation and generation, the
micro-batches of one optimizer step and the recompute of an activation-checkpointed forward (a decoded token would
otherwise pay them again in every layer; for DoRA, W·Aᵀ and a dozen small ops: 0.44 ms per 576→1536 bf16 layer on
a 2-core CPU, hot in cache). They are keyed on `weights_key()`: the version counters and storages of A, B, the
magnitude and W, and the tick of the model's `Clock`.

Why a clock. A fused optimizer (AdamW(fused=True)) writes parameters in place without bumping their version
counters, so versions alone miss its steps. The clock ticks after every step of an optimizer given to
`track_optimizer`; a model with no tracked optimizer ticks at every top-level call (the model or its decoder,
called by the user or by generate) while an adapter parameter holds a gradient, at the first such call after
the gradients were dropped, and at the first call after one made with grad enabled (its backward, the step and
zero_grad can all come before the next call, as in transformers.Trainer). A torch optimizer only writes a parameter that has a gradient, so nothing cached can
outlive a step; what it costs is that untracked, the micro-batches of an accumulated step recompute DoRA's terms.
A layer built alone (no model) makes each of its own calls a top-level call.
"""
from __future__ import annotations

import copy

import torch
import torch.nn as nn

from amplora.adapters import quant
from amplora.adapters.fast import kept as kept_mod, node
from amplora.adapters.fast.torch_private import version


class Clock:
    """The ticks after which what the fast layers of one model keep may be stale (module docstring)."""

    def __init__(self):
        self.ticks = 0
        self.tracked = 0  # optimizers whose steps tick it (track_optimizer)
        self.layers: list = []  # the FastLayers it keys (their adapter gradients are what `call` looks at)
        self._had_grads = False
        self._had_graph = False  # the last call ran with grad enabled

    def __deepcopy__(self, memo):
        """A copied model gets a clock of its own: no layers yet (each copied FastLayer joins it), no optimizer."""
        new = memo[id(self)] = Clock()
        return new

    def tick(self, *_args) -> None:  # also an optimizer step post-hook
        self.ticks += 1

    def call(self) -> None:
        """A top-level call is starting (the model's boundary hook, or a layer built alone)."""
        if self.tracked:
            return
        grads = any(p is not None and p.grad is not None for f in self.layers for p in f.layer.adapter_tensors())
        # after a call with grad enabled, a step may come before any call sees its gradients (transformers.Trainer:
        # backward, step, zero_grad, then the next forward)
        if grads or self._had_grads or self._had_graph:
            self.ticks += 1
        self._had_grads, self._had_graph = grads, torch.is_grad_enabled()


class _Tracked:
    """What track_optimizer returns: `remove()` stops the clocks ticking at that optimizer's steps."""

    def __init__(self, clocks, handle):
        self.clocks, self.handle = clocks, handle

    def remove(self) -> None:
        if self.handle is not None:
            self.handle.remove()
            for clock in self.clocks:
                clock.tracked -= 1
                clock.tick()  # from now on, untracked steps are possible again: nothing kept survives
            self.handle = None


def clocks_of(model: nn.Module) -> list[Clock]:
    clocks = []
    for m in model.modules():
        clock = getattr(getattr(m, "fast", None), "clock", None)
        if isinstance(clock, Clock) and all(clock is not c for c in clocks):
            clocks.append(clock)
    return clocks


def track_optimizer(optimizer: torch.optim.Optimizer, model: nn.Module) -> _Tracked:
    """Tell `model`'s fast layers that `optimizer` steps its adapters (module docstring): their caches then live
    across calls until its next step, instead of being dropped at every call while gradients are held."""
    inner = optimizer
    while not hasattr(inner, "_optimizer_step_post_hooks") and isinstance(getattr(inner, "optimizer", None),
                                                                           torch.optim.Optimizer):
        inner = inner.optimizer  # accelerate's AcceleratedOptimizer and the like: the hooks are the inner one's
    clocks = clocks_of(model)
    if not clocks:
        return _Tracked([], None)

    def stepped(*_args) -> None:
        for clock in clocks:
            clock.tick()

    handle = inner.register_step_post_hook(stepped)
    for clock in clocks:
        clock.tracked += 1
        clock.tick()  # steps before now went unseen by this hook: start afresh
    return _Tracked(clocks, handle)


class FastLayer:
    def __init__(self, layer: nn.Module, clock: Clock, top_level: bool = False):
        self.layer, self.clock = layer, clock
        self.top_level = top_level  # a layer built alone: its calls are the top-level calls
        self.siblings = None  # a siblings.Siblings this layer shares its input with, set by siblings.link
        self.kept = None  # a kept.Kept: A and Bᵀ in the compute dtype, DoRA's terms, per weights_key
        clock.layers.append(self)

    def __deepcopy__(self, memo):
        """A copied layer (copy.deepcopy of it or of its model) starts with nothing kept, on the copied clock."""
        new = memo[id(self)] = FastLayer.__new__(FastLayer)
        new.__dict__.update(self.__dict__, kept=None)
        new.layer = copy.deepcopy(self.layer, memo)
        new.clock = copy.deepcopy(self.clock, memo)
        new.clock.layers.append(new)
        new.siblings = copy.deepcopy(self.siblings, memo)
        return new

    def clear(self) -> None:
        self.kept = None

    def forward(self, x: torch.Tensor) -> torch.Tensor | None:
        if self.top_level:
            self.clock.call()
        if self.siblings is not None:  # q/k/v, gate/up: one node for the layers that read the same x
            y = self.siblings.output(self.layer, x)
            if y is not None:
                return y
        if not self.covered():
            return None
        layer = self.layer
        dropout = layer._modules["lora_dropout"]  # (not layer.lora_dropout: see LoraLinear.adapter_tensors)
        dropout = None if isinstance(dropout, nn.Identity) else dropout
        x = layer.precision.to_compute(x)
        xd = None if dropout is None else dropout(x)
        lay, params = self.node_args()
        return node.adapter_linears(x, xd, (lay,), params)[0]

    def covered(self) -> bool:
        """Whether the node runs this layer's forward: adapters enabled and unmerged, a base the node covers (DoRA
        with dropout keeps the plain path)."""
        layer = self.layer
        modules = layer._modules
        dropout = not isinstance(modules["lora_dropout"], nn.Identity)
        return not layer.merged and not layer.disabled and node.supported(modules["base_layer"], layer.dora, dropout)

    def fusable(self) -> bool:
        """Whether this layer can join a node with its siblings: unmerged, no dropout (each layer draws its own
        mask), a base the node covers."""
        layer = self.layer
        modules = layer._modules
        return (not layer.merged and isinstance(modules["lora_dropout"], nn.Identity)
                and node.supported(modules["base_layer"], layer.dora, False))

    def node_args(self, grouped: bool = False) -> tuple[node.Layer, tuple]:
        """This layer as the fused node takes it: (Layer, (A, B, magnitude)), with what it keeps for the current
        weights (kept.py); grouped: its A is its group's whole stack (the node of siblings.py)."""
        layer = self.layer
        kept = self.kept
        if kept is None or kept.key != self.weights_key() or (grouped and kept.stack is None):
            kept_mod.refresh(self.clock, self)  # every stale layer of the model at once
            kept = self.kept
        dora = kept.dora or (None, None, None, None)
        lay = node.Layer(layer._modules["base_layer"], layer.scaling, *dora, a_c=kept.stack if grouped else kept.a_c,
                         bt=kept.bt)
        return lay, layer.adapter_tensors()

    def weights_key(self, ts: tuple | None = None) -> tuple:
        """Changes whenever A, B, the magnitude or W may have: their version counters and storages, and the
        clock's tick (module docstring). ts: this layer's `tensors()` when the caller has them."""
        ts = self.tensors() if ts is None else ts
        return (self.clock.ticks, self.layer.precision.compute, *map(version, ts), *(t.data_ptr() for t in ts))

    def tensors(self) -> tuple:
        """(A, B, W) and, for DoRA, the magnitude: what weights_key reads."""
        layer = self.layer
        a, b, m = layer.adapter_tensors()
        w = quant.weight_of(layer._modules["base_layer"])
        return (a, b, w) if m is None else (a, b, w, m)
