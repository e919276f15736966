"""The fast path of an adapted layer: the fused autograd node, sibling groups and the lean modules.

The plain layer (adapters/layers.py, LoraLinear) is the reference and the fallback; everything here computes the
same layer faster and with less kept for backward, and is chosen per model at `apply` time (`path="fused"`, the
default, recorded in AdapterConfig.path; "plain" leaves it out). Modules:

    layer.py          FastLayer, the per-layer entry point and what it keeps per state of the weights; Clock and
                      track_optimizer, which say when that state may have changed without a version bump
    node.py           AdapterLinear, the autograd Function for one layer or several that read the same input
    siblings.py       q/k/v and gate/up as one node (link / unlink)
    kept.py           A and Bᵀ in the compute dtype and DoRA's terms, per state of the weights, for all layers at once
    lean.py           RMSNorm / SwiGLU stand-ins that keep less for backward (install / restore)
    torch_private.py  the only reads of torch internals, each behind one function; `available()` checks them

What a layer must provide (LoraLinear does): `base_layer` (a frozen nn.Linear, bnb Linear4bit or transformers
Conv1D; its weight is read through quant.weight_of, as (out, in)), `scaling`, `dora`, `merged`, `lora_dropout`,
`precision` (the policy: `precision.compute`, `precision.to_compute(x)`), `adapter_tensors()` -> (A, B, magnitude
or None) and, for DoRA, `dora_cross_term()` and `weight_sq_norm` (adapters/dora.py makes the row norm of W + s·BA
from them). What the fast path returns:
`layer.fast.forward(x)` is the layer's output, or None when the node does not cover the call (a merged layer, an
unfrozen base, DoRA with dropout) and the plain forward must run.

The protocol between the nodes, instead of reading each other's autograd internals: a node whose output can be
given back in backward from what it keeps answers `can_replay_output(ctx, k)` and `replay_output(ctx, k)`
(AdapterLinear, for DoRA: lean.py replays a residual sum from it); the lean nodes answer `lean.replayable(node)`
and `lean.replay(node)` (node.py replays an adapter's input from them). Which Function made a node is asked of
torch_private.function_of, nowhere else.
"""
from amplora.adapters.fast.layer import Clock, FastLayer, clocks_of, track_optimizer
from amplora.adapters.fast.node import matmul_fp32
from amplora.adapters.fast.torch_private import available, no_autocast

__all__ = ["Clock", "FastLayer", "available", "clocks_of", "matmul_fp32", "no_autocast", "track_optimizer"]
