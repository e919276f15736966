"""What the fast layers keep per state of the weights (amplora.adapters.fast.kept): made for every stale layer of a
model at once, never cast again per layer while the weights stand still, and the layers whose tensors are not plain
(an FSDP2 shard) left to refresh themselves."""
from __future__ import annotations

import copy

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import amplora
from amplora.adapters.fast import kept

from ..conftest import perturb_adapters, tiny_llama


class OpLog(TorchDispatchMode):
    """The aten ops a region runs, with the storages their tensor arguments read (lists of tensors too)."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        flat = [t for a in args for t in (a if isinstance(a, (list, tuple)) else (a,))]
        ptrs = {t.untyped_storage().data_ptr() for t in flat if isinstance(t, torch.Tensor)}
        self.ops.append((func.overloadpacket.__name__, ptrs))
        return func(*args, **(kwargs or {}))

    def count(self, name=None, reading=()):
        """How many ops (named `name`, or any) read one of the storages `reading` (or any)."""
        return sum(1 for n, ptrs in self.ops
                   if (name is None or n == name) and (not reading or ptrs & set(reading)))


def trained(method: str, preset: str = "bf16-true"):
    model = amplora.apply(tiny_llama(), method=method, r=4, precision=preset)
    perturb_adapters(model)
    opt = torch.optim.AdamW([p for _, p in amplora.trainable_parameters(model)], lr=0.01, fused=True)
    amplora.track_optimizer(opt, model)
    return model, opt


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_a_step_refreshes_every_layer_at_once_and_casts_no_adapter_per_layer(ids, method):
    """After an optimizer step, the first adapted layer's forward refreshes all of them: the fp32 masters are cast
    by one multi-tensor copy (two for DoRA: A and B, then g), no fp32 tensor is cast or stacked per layer in the
    forward, and a second micro-batch of the same step copies nothing at all."""
    model, opt = trained(method)
    layers = amplora.lora_layers(model).values()
    for _ in range(2):
        model(ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad()
    with OpLog() as first:
        loss = model(ids, labels=ids).loss
    loss.backward()
    masters = [p.untyped_storage().data_ptr() for m in layers for p in m.adapter_tensors()[:2]]
    assert first.count("_foreach_copy_") == (2 if method == "dora" else 1)
    # A and B read by the one copy and by DoRA's row norms (W·Aᵀ, A·Aᵀ, B·(…)), never cast or stacked one by one
    assert first.count("_foreach_copy_", masters) == 1
    assert first.count("_to_copy", masters) == first.count("cat", masters) == 0
    keys = [m.fast.kept.key for m in layers]
    assert all(key == m.fast.weights_key() for key, m in zip(keys, layers))
    with OpLog() as second:
        model(ids, labels=ids).loss.backward()  # the next micro-batch: the weights have not changed
    assert second.count("_foreach_copy_") == 0 and [m.fast.kept.key for m in layers] == keys


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_the_kept_copies_are_reused_buffers_and_equal_a_fresh_model(ids, method):
    """Refreshed in place step after step (the same buffers), and every output and gradient equals that of a copy
    of the model that has nothing kept."""
    model, opt = trained(method)
    for step in range(3):
        model(ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad()
        fresh = copy.deepcopy(model)
        loss, ref = model(ids, labels=ids).loss, fresh(ids, labels=ids).loss
        loss.backward(), ref.backward()
        assert torch.equal(loss, ref)
        grads = dict(amplora.trainable_parameters(model))
        assert all(torch.equal(grads[n].grad, p.grad) for n, p in amplora.trainable_parameters(fresh))
        opt.zero_grad()
        buffers = [(m.fast.kept.bt, m.fast.kept.stack) for m in amplora.lora_layers(model).values()]
        if step:
            assert all(b is p[0] and s is p[1] for (b, s), p in zip(buffers, last))
        last = buffers


def test_a_layer_whose_tensors_are_not_plain_is_left_to_refresh_itself(ids):
    """A tensor subclass (as FSDP2's sharded DTensor parameters are until their unit's forward) is never read by
    another layer's refresh; the layer refreshes itself when its own forward comes, and the outputs are right."""
    model, _ = trained("lora")
    reference = copy.deepcopy(model)
    layers = list(amplora.lora_layers(model).values())
    odd = layers[-1]  # the last down_proj: called after every other layer
    with torch.no_grad():
        odd.lora_A.weight = torch.nn.Parameter(odd.lora_A.weight.detach().as_subclass(Sub))
    seen = []
    original = kept._casts

    def recorded(fast, *args):
        seen.append(fast.layer)
        return original(fast, *args)

    kept._casts = recorded
    try:
        with torch.no_grad():
            out = model(ids).logits
    finally:
        kept._casts = original
    assert seen.count(odd) == 1 and seen[-1] is odd  # once, by its own forward, after all others
    with torch.no_grad():
        assert torch.equal(out, reference(ids).logits)


class Sub(torch.Tensor):
    pass


def test_layers_the_node_does_not_run_are_not_refreshed(ids, monkeypatch):
    """A DoRA layer with dropout runs the plain path, which makes its own row norm: another layer's refresh must not
    make it a second time (a pass over W), nor for a disabled one."""
    model, _ = trained("dora")
    layers = list(amplora.lora_layers(model).values())
    dropped, disabled = layers[0], layers[-1]
    dropped.lora_dropout = torch.nn.Dropout(0.1)
    disabled.disabled = True  # as amplora.disable_adapters leaves it
    calls = []
    original = type(dropped).dora_cross_term
    monkeypatch.setattr(type(dropped), "dora_cross_term", lambda self, *a: calls.append(self) or original(self, *a))
    model(ids, labels=ids).loss.backward()
    assert calls.count(dropped) == 1 and disabled not in calls
    assert all(calls.count(m) == 1 for m in layers[1:-1])
