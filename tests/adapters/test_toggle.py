"""`amplora.disable_adapters`: inside the block the adapted model gives its base model's logits, on both paths."""
from __future__ import annotations

import contextlib

import pytest
import torch

import amplora

from .conftest import perturb_adapters, tiny_llama

CASES = [(m, p) for m in ("lora", "dora") for p in ("fused", "plain")]


def _logits(model, ids, grad: bool) -> torch.Tensor:
    with contextlib.nullcontext() if grad else torch.no_grad():
        return model(input_ids=ids).logits.detach()


@pytest.mark.parametrize("method, path", CASES, ids=["-".join(c) for c in CASES])
def test_disabled_adapters_give_the_base_model_exactly(ids, method, path):
    model = tiny_llama()
    base = {grad: _logits(model, ids, grad) for grad in (False, True)}  # before apply
    amplora.apply(model, method=method, r=4, alpha=8, precision="fp32", path=path)
    perturb_adapters(model)
    adapted = _logits(model, ids, grad=False)
    assert not torch.allclose(adapted, base[False], atol=1e-3)
    for grad in (False, True):  # the no-grad inference cache and the training node
        with amplora.disable_adapters(model):
            assert torch.equal(_logits(model, ids, grad), base[grad])
        assert torch.equal(_logits(model, ids, grad=False), adapted)


def test_adapters_come_back_after_an_exception_and_blocks_nest(ids):
    model = tiny_llama()
    base = _logits(model, ids, grad=False)
    amplora.apply(model, r=4, alpha=8, precision="fp32")
    perturb_adapters(model)
    adapted = _logits(model, ids, grad=False)
    with pytest.raises(ValueError):
        with amplora.disable_adapters(model):
            raise ValueError("inside")
    assert torch.equal(_logits(model, ids, grad=False), adapted)
    with amplora.disable_adapters(model):
        with amplora.disable_adapters(model):
            pass
        assert torch.equal(_logits(model, ids, grad=False), base)  # the inner block left them disabled
    assert torch.equal(_logits(model, ids, grad=False), adapted)


def test_disable_refuses_a_model_without_adapters_and_a_merged_one():
    model = tiny_llama()
    with pytest.raises(amplora.AmploraError, match="no amplora adapters"):
        with amplora.disable_adapters(model):
            pass
    amplora.apply(model, r=4, alpha=8, precision="fp32")
    amplora.merge(model, keep_adapters=True)
    with pytest.raises(amplora.AmploraError, match="unmerge"):
        with amplora.disable_adapters(model):
            pass
