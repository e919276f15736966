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
from amplora.adapters import quant

from .architectures import BF16_TOL, FAMILIES, IN_PLACE, XFAIL, tiny
from .conftest import TOL, dense_fp32_twin, perturb_adapters, rel_err

CASES = [("lora", "fp32"), ("lora", "bf16-true"), ("dora", "fp32"), ("dora", "bf16-true")]


def _marks(family: str, method: str) -> list:
    why = XFAIL.get(family) or XFAIL.get(f"{family}-{method}")
    return [pytest.mark.xfail(strict=True, reason=why)] if why else []


PARAMS = [pytest.param(family, method, preset, id=f"{family}-{method}-{preset}", marks=_marks(family, method))
          for family in FAMILIES for method, preset in CASES]


def tolerance(policy, family: str) -> float:
    if policy.compute == torch.float32:
        return 1e-5
    return max(TOL[policy.compute], BF16_TOL.get(family, 0.0))


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
    model.train()  # as a trainer does (RWKV keeps no state for backward only in train mode)
    for _ in range(steps):
        out = model(ids, labels=ids)
        assert out.logits.dtype == out.loss.dtype == policy.logits and torch.isfinite(out.loss)
        out.loss.backward()
        assert all(p.grad is not None and p.grad.dtype == policy.master and torch.isfinite(p.grad).all()
                   for p in params)
        opt.step()
        opt.zero_grad(set_to_none=True)
    model.eval()
    assert all(not torch.equal(a, b) for a, b in zip(before, params)), "an adapter did not move"
    for n, p in model.named_parameters():
        if n in frozen:
            assert torch.equal(p, frozen[n]), f"frozen {n} changed"


def generate(model, ids) -> None:
    prompt = ids[:, :6]
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3,
                         do_sample=False, pad_token_id=0)
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
        assert rel_err(adapted, ref(ids).logits) < tolerance(policy, family)
    merged = amplora.merge(model)
    assert not amplora.lora_layers(merged) and {p.dtype for p in merged.parameters()} == {policy.storage}
    with torch.no_grad():
        plain = merged(ids).logits
    # merge folds in fp32 and rounds once to storage: in bf16 that rounding of W + s·BA bounds the gap
    assert rel_err(plain, adapted) < tolerance(policy, family)


@pytest.mark.parametrize("family", IN_PLACE)
def test_in_place_add_into_a_dora_output(family, ids):
    """The fused DoRA node recomputes its output's pre-scale z in backward when the model changed the output in
    place: the same gradients as plain autograd, to 1e-5 relative."""
    grads = []
    for path in ("fused", "plain"):
        model = amplora.apply(tiny(family), method="dora", r=4, alpha=8, precision="fp32", path=path)
        perturb_adapters(model)
        model(ids, labels=ids).loss.backward()
        grads.append({n: p.grad for n, p in amplora.trainable_parameters(model)})
    fused, plain = grads
    assert fused.keys() == plain.keys()
    for n in plain:
        assert rel_err(fused[n], plain[n]) < 1e-5, n


def test_targets_only_what_computes_a_linear_layer():
    """all-linear adapts Linear subclasses that compute x·Wᵀ + b (FalconLinear), not Llama 4's router (it returns
    scores and logits), nor a Mamba mixer's out_proj, which its fused kernels read as a weight (PEFT refuses it)."""
    chosen = amplora.adapter_config(amplora.apply(tiny("falcon"), precision="fp32")).adapted
    assert "transformer.h.0.mlp.dense_4h_to_h" in chosen
    chosen = amplora.adapter_config(amplora.apply(tiny("llama4_text"), precision="fp32")).adapted
    assert not any(n.endswith("router") for n in chosen) and "model.layers.0.self_attn.q_proj" in chosen
    chosen = amplora.adapter_config(amplora.apply(tiny("nemotron_h"), precision="fp32")).adapted
    assert "model.layers.0.mixer.in_proj" in chosen and "model.layers.0.mixer.out_proj" not in chosen


@pytest.mark.xfail(strict=True, raises=AttributeError,
                   reason="RWKV with rescale_every > 0 (its default; the table sets 0) rescales "
                          "attention.output.weight and feed_forward.value.weight in place in eval mode; LoraLinear "
                          "has no .weight (PEFT's layer forwards it, and then RWKV rescales the base without the "
                          "adapter)")
def test_rwkv_rescaled_layers(ids):
    model = tiny("rwkv")
    model.config.rescale_every = 6
    amplora.apply(model, r=4, alpha=8, precision="fp32")
    generate(model, ids)


def test_falcon_loaded_in_bf16_is_targeted_whole():
    """The probe that admits FalconLinear holds in the dtype the user loaded the model in, too."""
    fp32 = amplora.adapter_config(amplora.apply(tiny("falcon"), precision="fp32")).adapted
    bf16 = amplora.adapter_config(amplora.apply(tiny("falcon").to(torch.bfloat16), precision="bf16-true")).adapted
    assert bf16 == fp32 and len(fp32) == 2 * 4


@pytest.mark.parametrize("family,recomputed", [("llama", 0), ("falcon", 2)])
def test_dora_recomputes_only_outputs_changed_in_place(family, recomputed, ids, monkeypatch):
    """Backward recomputes z (one GEMM with the base weight) for Falcon's two dense_4h_to_h, never otherwise."""
    from amplora.adapters.fast import node

    model = amplora.apply(tiny(family), method="dora", r=4, alpha=8, precision="fp32")
    loss = model(ids, labels=ids).loss
    calls = []
    monkeypatch.setattr(node, "base_matmul", lambda *a: calls.append(1) or quant.matmul_no_bias(*a))
    loss.backward()
    assert len(calls) == recomputed
