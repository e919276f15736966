"""DoRA's per-row terms (norm, g, zero check) in a forward with grad: computed once per state of the weights and
recomputed after every change of them (fast/kept.py)."""
from __future__ import annotations

import copy

import pytest
import torch
from torch.utils.checkpoint import checkpoint

import amplora
from amplora.adapters.layers import LoraLinear

from .test_node import BF16, F32, IN, SHAPE, make_layer, run


@pytest.fixture
def norm_calls(monkeypatch):
    """How many times any layer computed its row norm (each time re-reads W)."""
    calls = []
    original = LoraLinear.dora_cross_term

    def counted(self, *args):
        calls.append(self)
        return original(self, *args)

    monkeypatch.setattr(LoraLinear, "dora_cross_term", counted)
    return calls


def fresh_grads(layer, x):
    """Output and gradients of a copy of the layer that has never computed anything (no cache to reuse)."""
    clone = copy.deepcopy(layer)
    return run(clone, x, fused=True)


@pytest.mark.parametrize("compute", [F32, BF16])
def test_dora_terms_are_computed_once_per_state_of_the_weights(compute, norm_calls):
    layer = make_layer("dora", compute)
    x = torch.randn(*SHAPE, IN).to(compute)
    opt = torch.optim.AdamW(layer.parameters(), lr=0.05, fused=True)  # writes in place, bumps no version
    amplora.track_optimizer(opt, layer)  # its steps tick the layer's clock: the terms live until the next one
    run(layer, x, fused=True)
    run(layer, x, fused=True)  # a second micro-batch of the same optimizer step
    assert len(norm_calls) == 1

    def optimizer_step():
        opt.step()

    def in_place_edit():  # e.g. a user's re-initialisation of B under no_grad
        layer.lora_B.weight.mul_(0.5)

    def new_magnitude():
        layer.lora_magnitude_vector.data = layer.lora_magnitude_vector.data * 1.1

    for change in (optimizer_step, in_place_edit, new_magnitude):
        before = layer.fast.kept
        with torch.no_grad():
            change()
        y, grads = run(layer, x, fused=True)
        assert layer.fast.kept is not before, change.__name__
        y_ref, grads_ref = fresh_grads(layer, x)
        assert torch.equal(y, y_ref), change.__name__
        assert all(torch.equal(grads[k], grads_ref[k]) for k in grads), change.__name__
    assert len(norm_calls) == 1 + 3 + 3  # one per change, and one per fresh copy


def test_a_zero_written_into_the_magnitude_in_place_is_seen(norm_calls):
    """The zero check is part of the cached terms: a magnitude zeroed in place after it was made must not let the
    node recover z as y / g (division by zero), so the terms are recomputed and z is kept."""
    layer = make_layer("dora", F32)
    x = torch.randn(*SHAPE, IN)
    run(layer, x, fused=True)
    assert layer.fast.kept.dora[1] is True  # no zero in g yet
    with torch.no_grad():
        layer.lora_magnitude_vector[:2] = 0
    _, grads = run(layer, x, fused=True)
    assert layer.fast.kept.dora[1] is False
    _, grads_ref = run(layer, x, fused=False)
    assert torch.isfinite(grads["m"]).all()
    torch.testing.assert_close(grads["m"], grads_ref["m"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("compute", [F32, BF16])
def test_checkpointed_recompute_reuses_the_dora_terms(compute, norm_calls):
    """Activation checkpointing runs the forward again in backward: the norm is not computed a second time, and
    the gradients are those of the forward without checkpointing, bit for bit."""
    layer = make_layer("dora", compute)
    # tracked, as the trainer and DoctorCallback track theirs: untracked, a layer built alone makes its recompute a
    # top-level call after a grad-enabled one, which (transformers.Trainer's step order) drops its caches
    amplora.track_optimizer(torch.optim.SGD(layer.parameters(), lr=0.0), layer)
    x = torch.randn(*SHAPE, IN).to(compute)
    y_ref, grads_ref = fresh_grads(layer, x)
    calls = len(norm_calls)
    xc = x.detach().requires_grad_(True)
    y = checkpoint(layer, xc, use_reentrant=False)
    y.backward(torch.randn(y.shape, generator=torch.Generator().manual_seed(7)).to(y.dtype))
    assert len(norm_calls) == calls + 1
    assert torch.equal(y, y_ref)
    assert torch.equal(xc.grad, grads_ref["x"]) and torch.equal(layer.lora_magnitude_vector.grad, grads_ref["m"])
    assert torch.equal(layer.lora_A.weight.grad, grads_ref["A"]) and torch.equal(layer.lora_B.weight.grad, grads_ref["B"])


@pytest.mark.parametrize("storage", [F32, BF16])
def test_the_row_norm_is_fp32_inside_the_policys_autocast_region(storage):
    """The model runs under its policy's autocast (bf16 here); the norm must not be re-typed by it: the same bits as
    outside any region, and as close to the fp64 norm of W + s·BA as fp32 arithmetic on W's stored values allows
    (W·Aᵀ runs in W's storage dtype; a bf16 W rounds that product once, to about bf16's eps of its terms)."""
    layer = make_layer("dora", BF16, storage=storage)
    outside = layer.dora_norm()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inside = layer.dora_norm()
    assert inside.dtype == torch.float32
    assert torch.equal(inside, outside)
    w = layer.base_layer.weight.double()
    dense = (w + layer.scaling * layer.lora_B.weight.double() @ layer.lora_A.weight.double()).norm(dim=1)
    rtol = 1e-6 if storage == F32 else 4e-3  # bf16: W·Aᵀ rounded once to 8 bits
    torch.testing.assert_close(inside.double(), dense, rtol=rtol, atol=0)


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_the_merged_weight_is_fp32_inside_a_callers_autocast_region(method):
    layer = make_layer(method, BF16, storage=F32)
    outside = layer.merged_weight()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inside = layer.merged_weight()
    assert inside.dtype == torch.float32 and torch.equal(inside, outside)
