"""The architecture suite: every causal-LM family in architectures.py, tiny and random, through the whole life of
an adapter: apply → a few AdamW steps → generate → save → PEFT loads it → merge.

References: PEFT (fp32) on a dense fp32 twin of the exact base weights amplora computes with (conftest), so in
bf16-true the only error measured is bf16's, bounded by TOL[bf16]; in fp32 amplora and PEFT agree to 1e-5
relative, and so do the merged and the unmerged model.
"""
from __future__ import annotations

import copy

import pytest
import torch
from peft import PeftModel

import amplora

from .architectures import FAMILIES, XFAIL, tiny
from .conftest import TOL, dense_fp32_twin, perturb_adapters, rel_err

CASES = [("lora", "fp32"), ("lora", "bf16-true"), ("dora", "fp32"), ("dora", "bf16-true")]
PARAMS = [pytest.param(family, method, preset, id=f"{family}-{method}-{preset}",
                       marks=[pytest.mark.xfail(strict=True, reason=XFAIL[family])] if family in XFAIL else [])
          for family in FAMILIES for method, preset in CASES]


def tolerance(policy) -> float:
    return 1e-5 if policy.compute == torch.float32 else TOL[policy.compute]


def check_dtypes(model, policy) -> None:
    """What the policy promises: the frozen base in `storage`, the adapters fp32 masters."""
    for name, p in model.named_parameters():
        want = policy.master if p.requires_grad else policy.storage
        assert p.dtype == want, f"{name} is {p.dtype}, the policy says {want}"


def train(model, ids, policy, steps: int = 2) -> None:
    """A few AdamW steps on random tokens: finite fp32 loss and gradients, the adapters move, the base does not."""
    frozen = {n: p.detach().clone() for n, p in model.named_parameters() if not p.requires_grad}
    params = [p for _, p in amplora.trainable_parameters(model)]
    before = [p.detach().clone() for p in params]
    opt = torch.optim.AdamW(params, lr=1e-2)
    for _ in range(steps):
        out = model(ids, labels=ids)
        assert out.logits.dtype == out.loss.dtype == policy.logits and torch.isfinite(out.loss)
        out.loss.backward()
        assert all(p.grad is not None and p.grad.dtype == policy.master and torch.isfinite(p.grad).all()
                   for p in params)
        opt.step()
        opt.zero_grad(set_to_none=True)
    assert all(not torch.equal(a, b) for a, b in zip(before, params)), "an adapter did not move"
    for n, p in model.named_parameters():
        if n in frozen:
            assert torch.equal(p, frozen[n]), f"frozen {n} changed"


def generate(model, ids) -> None:
    prompt = ids[:, :6]
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3, do_sample=False,
                         pad_token_id=0)
    assert out.shape == (2, 9)


@pytest.mark.parametrize("family,method,preset", PARAMS)
def test_adapter_lifecycle(family, method, preset, ids, tmp_path):
    base = tiny(family)
    model = amplora.apply(copy.deepcopy(base), method=method, r=4, alpha=8, precision=preset)
    policy = amplora.policy_of(model)
    check_dtypes(model, policy)
    perturb_adapters(model)
    train(model, ids, policy)
    generate(model, ids)
    with torch.no_grad():
        adapted = model(ids).logits
    amplora.save_adapter(model, tmp_path / "adapter")
    ref = PeftModel.from_pretrained(dense_fp32_twin(model, base), tmp_path / "adapter").eval()
    with torch.no_grad():
        assert rel_err(adapted, ref(ids).logits) < tolerance(policy)
    merged = amplora.merge(model)
    assert not amplora.lora_layers(merged) and {p.dtype for p in merged.parameters()} == {policy.storage}
    with torch.no_grad():
        plain = merged(ids).logits
    # merge folds in fp32 and rounds once to storage: in bf16 that rounding of W + s·BA bounds the gap
    assert rel_err(plain, adapted) < tolerance(policy)
