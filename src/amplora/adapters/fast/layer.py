"""One adapted layer on the fast path: what it hands the fused node, and what it keeps per state of its weights.

`FastLayer(layer, clock)` is attached to a LoraLinear as `layer.fast` (by `apply` for a model whose path is
"fused", or by the layer itself when built alone). `forward(x)` returns the layer's output from the fused node
(node.py), alone or with its siblings (siblings.py), or None for a call the node does not cover: the layer then
runs its plain forward.

What it keeps. Without grad (generate, eval), A and Bᵀ in the compute dtype and DoRA's row norm and g: a decoded
token would otherwise pay them again in every layer (for DoRA a pass over W). With grad, DoRA's norm, g and
whether g has a zero: the micro-batches of one optimizer step, the recompute of an activation-checkpointed forward
and the no-grad cache share them (W·Aᵀ and a dozen small ops: 0.44 ms per 576→1536 bf16 layer on a 2-core CPU,
hot in cache). Both are keyed on `weights_key()`: the version counters and storages of A, B, the magnitude and W,
and the tick of the model's `Clock`.

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
from amplora.adapters.fast import node
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
        self.inference_cache = None  # see node_args
        self.dora_terms_cache = None  # see dora_terms
        clock.layers.append(self)

    def __deepcopy__(self, memo):
        """A copied layer (copy.deepcopy of it or of its model) starts with nothing kept, on the copied clock."""
        new = memo[id(self)] = FastLayer.__new__(FastLayer)
        new.__dict__.update(self.__dict__, inference_cache=None, dora_terms_cache=None)
        new.layer = copy.deepcopy(self.layer, memo)
        new.clock = copy.deepcopy(self.clock, memo)
        new.clock.layers.append(new)
        new.siblings = copy.deepcopy(self.siblings, memo)
        return new

    def clear(self) -> None:
        self.inference_cache = self.dora_terms_cache = None

    def forward(self, x: torch.Tensor) -> torch.Tensor | None:
        if self.top_level:
            self.clock.call()
        if self.siblings is not None:  # q/k/v, gate/up: one node for the layers that read the same x
            y = self.siblings.output(self.layer, x)
            if y is not None:
                return y
        layer = self.layer
        modules = layer._modules  # (not layer.lora_dropout etc.: see LoraLinear.adapter_tensors)
        dropout = modules["lora_dropout"]
        dropout = None if isinstance(dropout, nn.Identity) else dropout
        if layer.merged or not node.supported(modules["base_layer"], layer.dora, dropout is not None):
            return None
        x = layer.precision.to_compute(x)
        xd = None if dropout is None else dropout(x)
        lay, params = self.node_args()
        return node.adapter_linears(x, xd, (lay,), params)[0]

    def fusable(self) -> bool:
        """Whether this layer can join a node with its siblings: unmerged, no dropout (each layer draws its own
        mask), a base the node covers."""
        layer = self.layer
        modules = layer._modules
        return (not layer.merged and isinstance(modules["lora_dropout"], nn.Identity)
                and node.supported(modules["base_layer"], layer.dora, False))

    def node_args(self) -> tuple[node.Layer, tuple]:
        """This layer as the fused node takes it: (Layer, (A, B, magnitude)). Without grad, from the no-grad
        cache (module docstring); a forward with grad drops that cache."""
        layer = self.layer
        a, b, m = params = layer.adapter_tensors()
        base = layer._modules["base_layer"]
        if torch.is_grad_enabled():
            self.inference_cache = None
            if not layer.dora:
                return node.Layer(base, layer.scaling), params
            return node.Layer(base, layer.scaling, *self.dora_terms()), params
        key = self.weights_key()
        if self.inference_cache is None or self.inference_cache[0] != key:
            c = layer.precision.compute
            a_c = a if a.dtype == c else a.detach().to(c)
            b_c = b if b.dtype == c else node._bt(b, c).t()  # a view of Bᵀ made contiguous: the fast layout
            norm, _, g_c = self.dora_terms() if layer.dora else (None, None, None)  # shared with training
            self.inference_cache = (key, a_c, b_c, norm, g_c)
        _, a_c, b_c, norm, g_c = self.inference_cache
        return node.Layer(base, layer.scaling, norm, g=g_c), (a_c, b_c, m)

    def weights_key(self) -> tuple:
        """Changes whenever A, B, the magnitude or W may have: their version counters and storages, and the
        clock's tick (module docstring)."""
        layer = self.layer
        a, b, m = layer.adapter_tensors()
        ts = (a, b, quant.weight_of(layer._modules["base_layer"])) + ((m,) if layer.dora else ())
        return (self.clock.ticks, layer.precision.compute, *map(version, ts), *(t.data_ptr() for t in ts))

    def dora_terms(self) -> tuple[torch.Tensor, bool, torch.Tensor]:
        """DoRA: (the detached fp32 row norm, whether g has no zero, g = m / norm in the compute dtype), as
        node.Layer takes them, once per weights_key.
        The zero check lets the node recover z from its output (y / g) instead of keeping a tokens × out copy;
        off the CPU it would synchronize once per layer and step, which serialized host and GPU on an H100 (bf16
        DoRA: 0.38 s/step against 0.24 keeping z; bench/speed.py --device cuda --batch 8 --seq 1024), so z is kept
        there instead."""
        key = self.weights_key()
        cache = self.dora_terms_cache
        if cache is None or cache[0] != key:
            layer = self.layer
            norm = layer.dora_norm()
            g_c = node.dora_scale(layer._parameters["lora_magnitude_vector"].detach(), norm, layer.precision.compute)
            zero_free = not bool((g_c == 0).any()) if g_c.is_cpu else False
            cache = self.dora_terms_cache = (key, norm, zero_free, g_c)
        return cache[1:]
