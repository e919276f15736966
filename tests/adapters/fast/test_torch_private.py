"""The torch internals the fast path reads (amplora.adapters.fast.torch_private), each checked on the installed
torch: a failure here means torch changed one of them, and `apply` would fall back to the plain path. The
fallback itself is checked too."""
from __future__ import annotations

import pytest
import torch

import amplora
from amplora.adapters.fast import torch_private as tp
from amplora.adapters.fast.node import AdapterLinear, Layer

from ..conftest import tiny_llama


def test_every_internal_is_there():
    assert tp.available(), "torch changed an internal the fused path reads: see adapters/fast/torch_private.py"


def test_the_function_behind_a_node():
    x = torch.randn(3, 4, requires_grad=True)
    base = torch.nn.Linear(4, 5).requires_grad_(False)
    a, b = torch.randn(2, 4, requires_grad=True), torch.randn(5, 2, requires_grad=True)
    (y,) = AdapterLinear.apply(x, None, (Layer(base, 1.0),), a, b, None)
    assert tp.function_of(y.grad_fn) is AdapterLinear
    assert tp.function_of((x * 2).grad_fn) is None and tp.function_of(None) is None


def test_the_operands_a_product_saved():
    a, b = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    saved = tp.product_operands((a * b).grad_fn)
    assert saved is not None and torch.equal(saved[0], a) and torch.equal(saved[1], b)
    assert tp.product_operands((a + b).grad_fn) is None and tp.product_operands(None) is None


def test_the_inputs_of_a_plain_sum():
    a, b = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    s = a * 1 + b * 1
    edges = tp.plain_sum_inputs(s.grad_fn)
    assert edges is not None and len(edges) == 2
    assert tp.plain_sum_inputs(torch.add(a * 1, b * 1, alpha=2).grad_fn) is None
    assert tp.plain_sum_inputs((a * 1 - b * 1).grad_fn) is None


def test_saved_tensor_hooks_and_autocast_are_seen():
    assert not tp.saved_tensor_hooks_active()
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        assert tp.saved_tensor_hooks_active()
    t = torch.ones(2)
    assert isinstance(tp.no_autocast(t), type(tp._NO_REGION))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with tp.no_autocast(t):
            assert (t @ t).dtype == torch.float32


def test_version_counts_in_place_writes():
    t = torch.zeros(2)
    v = tp.version(t)
    t.add_(1)
    assert tp.version(t) == v + 1


def test_graph_kept_says_retain_graph_inside_a_backward():
    seen = []

    class Probe(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            seen.append(tp.graph_kept())
            return g

    y = Probe.apply(torch.ones(2, requires_grad=True)).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert seen == [True, False]


def test_apply_falls_back_to_the_plain_path_when_an_internal_changed(monkeypatch, ids):
    monkeypatch.setattr(tp, "available", lambda: False)
    monkeypatch.setattr(amplora.adapters.fast, "available", lambda: False)
    with pytest.warns(UserWarning, match="plain autograd"):
        model = amplora.apply(tiny_llama(), r=4, precision="fp32")
    assert amplora.adapter_config(model).path == "plain"
    assert all(m.fast is None for m in amplora.lora_layers(model).values())
    model(ids).logits.sum().backward()
