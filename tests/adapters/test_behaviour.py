"""Adapter behaviour beyond the matrix: targets, tied embeddings, unmerge, PiSSA save, init, auto, policy table."""
from __future__ import annotations

import copy

import pytest
import torch
from peft import PeftModel

import amplora
from amplora import precision as prec

from .conftest import dense_fp32_twin, perturb_adapters, rel_err, tiny_llama


def test_targets_forms(base_fp32):
    allm = amplora.apply(copy.deepcopy(base_fp32), precision="fp32")
    assert len(amplora.lora_layers(allm)) == 2 * 7 and "lm_head" not in amplora.lora_layers(allm)
    some = amplora.apply(copy.deepcopy(base_fp32), targets=["q_proj", "v_proj"], precision="fp32")
    assert sorted({n.rsplit(".", 1)[1] for n in amplora.lora_layers(some)}) == ["q_proj", "v_proj"]
    rx = amplora.apply(copy.deepcopy(base_fp32), targets=r"model\.layers\.1\.mlp\..*", precision="fp32")
    assert sorted(amplora.lora_layers(rx)) == [f"model.layers.1.mlp.{p}" for p in ("down_proj", "gate_proj", "up_proj")]


def test_regex_targets_save_exact_module_list(base_fp32, ids, tmp_path):
    model = amplora.apply(copy.deepcopy(base_fp32), targets=r"model\.layers\.1\..*_proj", precision="fp32", r=4)
    perturb_adapters(model)
    amplora.save_adapter(model, tmp_path / "a")
    ref = PeftModel.from_pretrained(copy.deepcopy(base_fp32), tmp_path / "a")
    assert sum(n.endswith(".lora_A") for n, _ in ref.named_modules()) == len(amplora.lora_layers(model))
    with torch.no_grad():
        assert rel_err(model(ids).logits, ref(ids).logits) < 1e-5


def test_tied_embeddings_stay_tied_and_untargeted(ids):
    model = tiny_llama(tie_word_embeddings=True)
    amplora.apply(model, precision="bf16-true", r=4)
    assert model.lm_head.weight is model.model.embed_tokens.weight
    assert model.lm_head.weight.dtype == torch.bfloat16 and "lm_head" not in amplora.lora_layers(model)


def test_unmerge_is_exact_for_fp32_storage(base_fp32, ids):
    for method in ("lora", "dora"):
        model = amplora.apply(copy.deepcopy(base_fp32), method=method, r=4, precision="fp32")
        perturb_adapters(model)
        weights = {n: p.detach().clone() for n, p in model.named_parameters() if "base_layer" in n}
        with torch.no_grad():
            before = model(ids).logits
            amplora.merge(model, keep_adapters=True)
            merged = model(ids).logits
            amplora.unmerge(model)
            after = model(ids).logits
        assert rel_err(merged, before) < 1e-5 and rel_err(after, before) < 1e-5
        for n, p in model.named_parameters():
            if n in weights:
                torch.testing.assert_close(p, weights[n], rtol=0, atol=1e-6)


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_merge_and_unmerge_inside_a_callers_autocast_region_are_fp32(base_fp32, method):
    """A bf16 autocast region around merge/unmerge must not re-type their B·A: the same bits as outside one."""
    outside = amplora.apply(copy.deepcopy(base_fp32), method=method, r=4, precision="fp32")
    perturb_adapters(outside)
    inside = copy.deepcopy(outside)
    amplora.merge(outside, keep_adapters=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        amplora.merge(inside, keep_adapters=True)
    def base_weights(m):
        return {n: p.detach().clone() for n, p in m.named_parameters() if "base_layer" in n}
    merged_in, merged_out = base_weights(inside), base_weights(outside)
    assert all(torch.equal(merged_in[n], merged_out[n]) for n in merged_out)
    amplora.unmerge(outside)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        amplora.unmerge(inside)
    unmerged_out = base_weights(outside)
    assert all(torch.equal(p, unmerged_out[n]) for n, p in base_weights(inside).items())
    plain = amplora.merge(copy.deepcopy(inside))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        plain_in = amplora.merge(inside)
    plain_params = dict(plain.named_parameters())
    assert all(torch.equal(p, plain_params[n]) for n, p in plain_in.named_parameters())


def test_pissa_init_inside_a_callers_autocast_region_is_fp32(base_fp32):
    outside = amplora.apply(copy.deepcopy(base_fp32), init="pissa", r=4, alpha=8, precision="fp32")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inside = amplora.apply(copy.deepcopy(base_fp32), init="pissa", r=4, alpha=8, precision="fp32")
    outside_params = dict(outside.named_parameters())
    assert all(torch.equal(p, outside_params[n]) for n, p in inside.named_parameters())


def test_unmerge_refused_where_not_exact(base_fp32):
    for kwargs in (dict(precision="bf16-true"), dict(precision="fp32", quantize="nf4")):
        model = amplora.apply(copy.deepcopy(base_fp32), r=4, **kwargs)
        with pytest.raises(amplora.AmploraError, match="keep_adapters"):
            amplora.merge(model, keep_adapters=True)


def test_pissa_saves_as_delta_on_the_original_base(base_fp32, ids, tmp_path):
    model = amplora.apply(copy.deepcopy(base_fp32), init="pissa", r=4, alpha=8, precision="fp32")
    with torch.no_grad():
        assert rel_err(model(ids).logits, base_fp32(ids).logits) < 1e-4, "PiSSA starts at the base function"
    opt = torch.optim.SGD([p for _, p in amplora.trainable_parameters(model)], lr=0.05)
    model(ids, labels=ids).loss.backward()
    opt.step()
    amplora.save_adapter(model, tmp_path / "p")
    ref = PeftModel.from_pretrained(copy.deepcopy(base_fp32), tmp_path / "p")  # the unmodified base
    assert ref.peft_config["default"].r == 8
    with torch.no_grad():
        assert rel_err(model(ids).logits, ref(ids).logits) < 1e-4


def test_gaussian_init_and_rslora_scaling(base_fp32):
    model = amplora.apply(copy.deepcopy(base_fp32), init="gaussian", r=16, alpha=8, rslora=True, precision="fp32")
    layer = amplora.lora_layers(model)["model.layers.0.self_attn.q_proj"]
    assert layer.scaling == pytest.approx(8 / 4)
    assert layer.lora_A.weight.std().item() == pytest.approx(1 / 16, rel=0.2)
    assert torch.count_nonzero(layer.lora_B.weight) == 0


def test_auto_resolves_from_device(monkeypatch):
    monkeypatch.setattr(prec, "cpu_features", lambda: frozenset({"avx2"}))
    assert prec.resolve("auto", "cpu").name == "fp32"
    monkeypatch.setattr(prec, "cpu_features", lambda: frozenset({"avx512_bf16", "avx512f"}))
    policy = prec.resolve("auto", "cpu")
    assert policy.name == "bf16-true" and "AVX512-BF16" in policy.reason


def test_every_preset_keeps_trainables_fp32():
    for name, policy in prec.PRESETS.items():
        assert policy.master == torch.float32 and policy.logits == torch.float32
        assert policy.loss_scaling == (policy.compute == torch.float16), name
    assert prec.parse_dtype("bfloat16") == torch.bfloat16
    with pytest.raises(prec.PrecisionError, match="unknown dtype"):
        prec.parse_dtype("fp8")


def test_the_policy_decides_the_derived_dtypes():
    """What precision.py names and the code reads: the adapter-gradient GEMM dtype, the boundary cast, the FSDP
    gather/reduce dtypes, the adapters' master dtype."""
    for name, policy in prec.PRESETS.items():
        assert policy.grad_gemm == (torch.bfloat16 if policy.compute == torch.bfloat16 else torch.float32), name
        assert policy.to_compute(torch.ones(2)).dtype == policy.compute
        mp = policy.fsdp_mixed_precision()
        assert mp.param_dtype is None and mp.reduce_dtype == policy.master and not mp.cast_forward_inputs
        layer = amplora.LoraLinear(torch.nn.Linear(4, 4).requires_grad_(False), r=2, alpha=4, dora=True,
                                   precision=policy)
        assert all(p.dtype == policy.master for p in layer.parameters() if p.requires_grad)
        assert layer.compute_dtype == policy.compute


def test_dora_norm_matches_dense_computation(base_fp32):
    """The low-rank expansion of ‖W + s·BA‖ equals the dense norm (which never gets built)."""
    model = amplora.apply(copy.deepcopy(base_fp32), method="dora", r=4, precision="fp32")
    perturb_adapters(model, scale=0.3)
    for layer in amplora.lora_layers(model).values():
        dense = (layer.base_layer.weight + layer.scaling * layer.lora_B.weight @ layer.lora_A.weight).norm(dim=1)
        torch.testing.assert_close(layer.dora_scale(), layer.lora_magnitude_vector / dense, rtol=1e-5, atol=1e-6)


def test_policy_scope_for_submodule_calls(base_fp32, ids):
    model = amplora.apply(copy.deepcopy(base_fp32), precision="bf16-mixed", r=4)
    with amplora.precision_scope(model):
        assert torch.is_autocast_enabled("cpu") and torch.get_autocast_dtype("cpu") == torch.bfloat16
        hidden = model.model(ids).last_hidden_state
    assert not torch.is_autocast_enabled("cpu")
    assert torch.isfinite(hidden).all()
