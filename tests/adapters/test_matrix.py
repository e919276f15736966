"""The precision matrix: method × quantize × base dtype × preset × phase, against an fp32 PEFT reference.

Every cell builds a tiny Llama in the base dtype, applies amplora under the preset, and checks one phase.
The reference is PEFT (fp32) on a dense fp32 twin of the exact base weights amplora computes with, so the only
error measured is precision error, bounded by TOL[compute dtype].
"""
from __future__ import annotations

import copy
import warnings

import pytest
import torch
from peft import LoraConfig, PeftModel, get_peft_model

import amplora
from amplora.adapters import quant

from .conftest import DEVICE, DTYPES, TOL, dense_fp32_twin, perturb_adapters, rel_err

METHODS = ["lora", "dora"]
QUANT = [None, "nf4"]
PRESETS = ["fp32", "bf16-true", "bf16-mixed", "fp16-mixed"]
OTHER_AUTOCAST = {"fp32": torch.bfloat16, "bf16-true": torch.float16, "bf16-mixed": torch.float16,
                  "fp16-mixed": torch.bfloat16}
CELLS = [(m, q, d, p) for m in METHODS for q in QUANT for d in DTYPES for p in PRESETS]
IDS = [f"{m}-{q or 'dense'}-{d}-{p}" for m, q, d, p in CELLS]


def make(base_fp32, method, quantize, base_dtype, preset):
    plain = copy.deepcopy(base_fp32).to(DEVICE, DTYPES[base_dtype])  # "the model as the user loaded it"
    model = amplora.apply(plain, method=method, r=4, alpha=8, quantize=quantize, precision=preset)
    perturb_adapters(model)
    return model


def peft_reference(model, base_fp32, tmp_path):
    """PEFT, fp32, on the dense twin, loaded from amplora's saved adapter."""
    amplora.save_adapter(model, tmp_path / "adapter")
    return PeftModel.from_pretrained(dense_fp32_twin(model, base_fp32), tmp_path / "adapter").eval()


def tolerance(model):
    return TOL[amplora.policy_of(model).compute]


@pytest.mark.parametrize("method,quantize,base_dtype,preset", CELLS, ids=IDS)
def test_three_optimizer_steps(base_fp32, ids, tmp_path, method, quantize, base_dtype, preset):
    model = make(base_fp32, method, quantize, base_dtype, preset)
    policy = amplora.policy_of(model)
    with torch.no_grad():
        ref = peft_reference(model, base_fp32, tmp_path)(ids).logits
    frozen = {n: p.detach().clone() for n, p in model.named_parameters() if not p.requires_grad}
    params = [p for _, p in amplora.trainable_parameters(model)]
    before = [p.detach().clone() for p in params]
    opt = torch.optim.AdamW(params, lr=1e-2)
    scaler = policy.grad_scaler(DEVICE.type)
    for step in range(3):
        out = model(ids, labels=ids)
        if step == 0:
            assert rel_err(out.logits, ref) < tolerance(model)
        assert out.logits.dtype == torch.float32 and out.loss.dtype == torch.float32
        assert torch.isfinite(out.loss)
        scaler.scale(out.loss).backward()
        scaler.unscale_(opt)
        for p in params:
            assert p.grad is not None and p.grad.dtype == torch.float32 and torch.isfinite(p.grad).all()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
    assert all(p.dtype == torch.float32 for p in params)
    assert any(not torch.equal(a, b.detach()) for a, b in zip(before, params)), "adapters did not move"
    for n, p in model.named_parameters():
        if n in frozen:
            assert torch.equal(p, frozen[n]), f"frozen {n} changed"


def _first_step_reference(ref_model, ids):
    with torch.no_grad():
        return ref_model(ids[:, :6]).logits[:, -1]


def _generate_and_check(model, ref_first, ids):
    prompt = ids[:, :6]
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=4, do_sample=False,
                         output_logits=True, return_dict_in_generate=True, pad_token_id=0)
    assert out.sequences.shape == (2, 10)
    assert out.logits[0].dtype == torch.float32
    assert rel_err(out.logits[0], ref_first) < tolerance(model)


@pytest.mark.parametrize("method,quantize,base_dtype,preset", CELLS, ids=IDS)
def test_generate_outside_autocast(base_fp32, ids, tmp_path, method, quantize, base_dtype, preset):
    model = make(base_fp32, method, quantize, base_dtype, preset)
    ref = _first_step_reference(peft_reference(model, base_fp32, tmp_path), ids)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no foreign region here, so no amplora warning
        warnings.filterwarnings("ignore", message=r"(?!amplora)")
        _generate_and_check(model, ref, ids)


@pytest.mark.parametrize("method,quantize,base_dtype,preset", CELLS, ids=IDS)
def test_generate_inside_foreign_autocast(base_fp32, ids, tmp_path, method, quantize, base_dtype, preset):
    model = make(base_fp32, method, quantize, base_dtype, preset)
    ref = _first_step_reference(peft_reference(model, base_fp32, tmp_path), ids)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autocast(DEVICE.type, dtype=OTHER_AUTOCAST[preset]):
            _generate_and_check(model, ref, ids)
    ours = [w for w in caught if "amplora" in str(w.message)]
    assert len(ours) == 1, "the override is announced once, not per generated token"
    assert "overridden" in str(ours[0].message) and preset in str(ours[0].message)


@pytest.mark.parametrize("method,quantize,base_dtype,preset", CELLS, ids=IDS)
def test_merge(base_fp32, ids, method, quantize, base_dtype, preset):
    model = make(base_fp32, method, quantize, base_dtype, preset)
    policy = amplora.policy_of(model)
    storage = policy.storage
    with torch.no_grad():
        adapted = model(ids).logits
    merged = amplora.merge(model)
    assert not amplora.lora_layers(merged) and amplora.policy_of(merged) is None
    kinds = {type(m).__name__ for m in merged.modules()}
    assert "Linear4bit" not in kinds and "LoraLinear" not in kinds
    assert {p.dtype for p in merged.parameters()} == {storage}
    assert not any(p.requires_grad for p in merged.parameters())
    with torch.no_grad(), torch.autocast(DEVICE.type, dtype=torch.bfloat16, enabled=storage == torch.bfloat16):
        plain = merged(ids).logits  # a plain model again: the caller now owns its precision
    # merge computes in fp32 and rounds once to storage: exact to 1e-5 when everything is fp32; otherwise the
    # adapted model's half compute (mixed presets) or the merged weight's rounding (true half) bounds the gap
    assert rel_err(plain, adapted) < (1e-5 if policy.compute == storage == torch.float32 else TOL[policy.compute])


@pytest.mark.parametrize("method,quantize,base_dtype,preset", CELLS, ids=IDS)
def test_save_then_peft_loads_same_weights(base_fp32, ids, tmp_path, method, quantize, base_dtype, preset):
    model = make(base_fp32, method, quantize, base_dtype, preset)
    ref = peft_reference(model, base_fp32, tmp_path)
    ours = amplora.adapter_state_dict(model)
    theirs = {k.replace(".default", ""): v for k, v in ref.state_dict().items() if "lora_" in k}
    theirs = {(k[: -len(".weight")] if "magnitude" in k else k): v for k, v in theirs.items()}
    assert set(ours) == set(theirs)
    for k in ours:
        assert torch.equal(ours[k].cpu(), theirs[k].float().cpu()), k
    with torch.no_grad():
        err = rel_err(model(ids).logits, ref(ids).logits)
    assert err < tolerance(model)
    if preset == "fp32" and quantize is None:
        assert err < 1e-4  # fp32 logits of amplora and PEFT with the same adapter agree to 1e-4 relative


@pytest.mark.parametrize("method,quantize,base_dtype,preset", CELLS, ids=IDS)
def test_peft_made_adapter_loads(base_fp32, ids, tmp_path, method, quantize, base_dtype, preset):
    torch.manual_seed(3)
    cfg = LoraConfig(r=4, lora_alpha=8, target_modules="all-linear", use_dora=method == "dora",
                     init_lora_weights=False)  # random B: a nonzero delta
    peft_model = get_peft_model(copy.deepcopy(base_fp32), cfg)
    peft_model.save_pretrained(tmp_path / "peft")
    plain = copy.deepcopy(base_fp32).to(DEVICE, DTYPES[base_dtype])
    model = amplora.load_adapter(plain, tmp_path / "peft", precision=preset, quantize=quantize)
    assert amplora.adapter_config(model).method == method
    assert not amplora.trainable_parameters(model), "loaded for inference by default"
    ref = PeftModel.from_pretrained(dense_fp32_twin(model, base_fp32), tmp_path / "peft").eval()
    with torch.no_grad():
        ours = model(ids).logits
        assert rel_err(ours, ref(ids).logits) < tolerance(model)
        if quantize is None and base_dtype == "fp32" and preset == "fp32":
            assert rel_err(ours, peft_model.to(DEVICE).eval()(ids).logits) < 1e-4
    assert all(quant.is_nf4(layer.base_layer) == (quantize == "nf4") for layer in amplora.lora_layers(model).values())
