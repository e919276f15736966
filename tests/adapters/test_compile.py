"""torch.compile: an adapted model traces as one graph (no graph breaks) and the compiled step matches eager.

The plain path (adapters/layers.py) is plain autograd and compiles whole. The fast path's nodes and lean modules
(adapters/fast) are custom autograd Functions that read autograd internals dynamo cannot trace: under
torch.compile they step aside for plain autograd, and the compiler plans the saves. The policy's region opens
inside the traced forward (adapters/boundary.py), so autocast policies compile whole too."""
from __future__ import annotations

import copy

import pytest
import torch
import torch._dynamo

import amplora

from .conftest import VOCAB, perturb_adapters, rel_err, tiny_llama

BACKEND = "aot_eager"  # traces forward and backward as inductor does, without a C++ compiler's codegen time
# compiled and eager run the same aten ops in the same dtypes; only fusion-free reordering can differ
TOL = {"fp32": 1e-5, "bf16-true": 1e-2}


def _loss(model, ids):
    logits = model(input_ids=ids).logits
    assert logits.dtype == torch.float32  # the policy's logits dtype, compiled or not
    return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))


def _grads(model) -> dict[str, torch.Tensor]:
    return {n: p.grad.clone() for n, p in amplora.trainable_parameters(model)}


@pytest.mark.parametrize("method, path, precision", [("lora", "plain", "fp32"), ("dora", "fused", "fp32"),
                                                      ("lora", "fused", "bf16-true"), ("dora", "plain", "bf16-true")])
def test_adapted_model_compiles_as_one_graph_and_matches_eager(method, path, precision, ids):
    torch._dynamo.reset()
    model = amplora.apply(tiny_llama(), method=method, r=4, alpha=8, precision=precision, path=path)
    perturb_adapters(model)
    explained = torch._dynamo.explain(model)(input_ids=ids)
    assert explained.graph_break_count == 0, explained.break_reasons
    assert explained.graph_count == 1

    twin = copy.deepcopy(model)
    eager = _loss(model, ids)
    eager.backward()
    compiled = _loss(torch.compile(twin, backend=BACKEND, fullgraph=True), ids)
    compiled.backward()
    assert rel_err(compiled, eager) < TOL[precision]
    eager_grads, compiled_grads = _grads(model), _grads(twin)
    assert eager_grads.keys() == compiled_grads.keys()
    for name, g in eager_grads.items():
        assert rel_err(compiled_grads[name], g) < TOL[precision] * 10, name


def test_compiled_model_still_runs_under_the_policy_inside_a_foreign_autocast(ids):
    torch._dynamo.reset()
    model = amplora.apply(tiny_llama(), r=4, alpha=8, precision="fp32", path="plain")
    perturb_adapters(model)
    with torch.no_grad():
        eager = model(input_ids=ids).logits
        compiled = torch.compile(model, backend=BACKEND, fullgraph=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):  # fp32 policy: the caller's bf16 region is turned off
            inside = compiled(input_ids=ids).logits
    assert inside.dtype == torch.float32
    assert rel_err(inside, eager) < 1e-5
