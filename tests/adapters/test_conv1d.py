"""GPT-2's Conv1D (W stored (in, out), y = x·W + b) as a base layer: apply, train, merge, save, load, against PEFT.

PEFT adapts Conv1D with fan_in_fan_out=True; its adapter tensors have the same names and shapes as for an
nn.Linear of the same (in, out), so the only difference is how the base weight is read, merged and normed (DoRA).
"""
from __future__ import annotations

import copy
import json

import pytest
import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import BitsAndBytesConfig, GPT2Config, GPT2LMHeadModel
from transformers.pytorch_utils import Conv1D

import amplora
from amplora.adapters import quant
from amplora.errors import AmploraError

from .conftest import TOL, VOCAB, dense_fp32_twin, perturb_adapters, rel_err

METHODS = ["lora", "dora"]
ADAPTED = sorted(f"transformer.h.{k}.{m}" for k in range(2) for m in ("attn.c_attn", "attn.c_proj", "mlp.c_fc",
                                                                         "mlp.c_proj"))


def tiny_gpt2(seed: int = 0) -> GPT2LMHeadModel:
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=4, resid_pdrop=0.0,
                        embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=1, eos_token_id=2)
    model = GPT2LMHeadModel(config).eval()
    with torch.no_grad():  # std-0.02 init gives near-flat logits: widen, as tiny_llama does
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0, 0.08)
    return model


@pytest.fixture(scope="module")
def gpt2() -> GPT2LMHeadModel:
    return tiny_gpt2()


@pytest.fixture
def ids() -> torch.Tensor:  # on the CPU: these tests are not among the device-aware ones
    return torch.randint(0, VOCAB, (2, 16), generator=torch.Generator().manual_seed(1))


def adapted(base, method="lora", **kw) -> GPT2LMHeadModel:
    model = amplora.apply(copy.deepcopy(base), method=method, r=4, alpha=8, **{"precision": "fp32", **kw})
    perturb_adapters(model)
    return model


def test_all_linear_adapts_every_conv1d_and_leaves_the_tied_head(gpt2):
    model = amplora.apply(copy.deepcopy(gpt2), precision="fp32", r=4)
    layers = amplora.lora_layers(model)
    assert sorted(layers) == ADAPTED
    assert all(type(layer.base_layer) is Conv1D for layer in layers.values())
    layer = layers["transformer.h.0.attn.c_attn"]
    assert (layer.in_features, layer.out_features) == (32, 96)
    assert layer.lora_A.weight.shape == (4, 32) and layer.lora_B.weight.shape == (96, 4)
    assert type(model.lm_head) is torch.nn.Linear and model.lm_head.weight is model.transformer.wte.weight
    with pytest.raises(AmploraError, match=r"matched no Linear module; Linear modules here: c_attn, c_fc, c_proj "):
        amplora.apply(copy.deepcopy(gpt2), targets=["q_proj", "v_proj"])


@pytest.mark.parametrize("method, dropout", [("lora", 0.0), ("dora", 0.0), ("dora", 0.1)])  # DoRA + dropout: plain
def test_saved_adapter_loads_in_peft(gpt2, ids, tmp_path, method, dropout):
    model = adapted(gpt2, method, dropout=dropout).eval()
    amplora.save_adapter(model, tmp_path / "a")
    config = json.loads((tmp_path / "a" / "adapter_config.json").read_text())
    assert config["fan_in_fan_out"] is True and config["target_modules"] == "all-linear"  # as asked
    ref = PeftModel.from_pretrained(copy.deepcopy(gpt2), tmp_path / "a").eval()
    theirs = {k.replace(".default", "").replace("lora_magnitude_vector.weight", "lora_magnitude_vector"): v
              for k, v in ref.state_dict().items() if "lora_" in k}
    ours = amplora.adapter_state_dict(model)
    assert set(ours) == set(theirs) and all(torch.equal(ours[k], theirs[k]) for k in ours)
    with torch.no_grad():
        assert rel_err(model(ids).logits, ref(ids).logits) < 1e-5


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("flag", [True, False])
def test_peft_made_adapter_loads(gpt2, ids, tmp_path, method, flag):
    """PEFT sets fan_in_fan_out per module from the base's type whatever the file says: so does amplora."""
    torch.manual_seed(3)
    cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn", "c_proj", "c_fc"], fan_in_fan_out=True,
                     use_dora=method == "dora", init_lora_weights=False)  # random B: a nonzero delta
    peft_model = get_peft_model(copy.deepcopy(gpt2), cfg).eval()
    peft_model.save_pretrained(tmp_path / "peft")
    config_file = tmp_path / "peft" / "adapter_config.json"
    config_file.write_text(json.dumps({**json.loads(config_file.read_text()), "fan_in_fan_out": flag}))
    model = amplora.load_adapter(copy.deepcopy(gpt2), tmp_path / "peft", precision="fp32")
    assert sorted(amplora.lora_layers(model)) == ADAPTED
    with torch.no_grad():
        assert rel_err(model(ids).logits, peft_model(ids).logits) < 1e-5


@pytest.mark.parametrize("method", METHODS)
def test_training_steps_move_the_adapters_only(gpt2, ids, method):
    model = amplora.apply(copy.deepcopy(gpt2), method=method, r=4, alpha=8, precision="fp32")
    frozen = {n: p.detach().clone() for n, p in model.named_parameters() if not p.requires_grad}
    params = dict(amplora.trainable_parameters(model))
    assert params and all("lora_" in n for n in params)
    opt = torch.optim.AdamW(params.values(), lr=2e-2)
    losses = []
    for step in range(6):
        loss = model(ids, labels=ids).loss
        loss.backward()
        # B starts at 0, so A's gradient is 0 at the first step: every adapter tensor has one from the second on
        reached = [n for n, p in params.items() if p.grad is not None and p.grad.abs().sum() > 0]
        assert reached == [n for n in params if step > 0 or "lora_A" not in n]
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
    assert losses[-1] < losses[0] - 0.05, losses
    assert all(torch.equal(p, frozen[n]) for n, p in model.named_parameters() if n in frozen)


@pytest.mark.parametrize("method", METHODS)
def test_fused_path_matches_plain_path(gpt2, ids, method):
    fused = adapted(gpt2, method)
    plain = copy.deepcopy(fused)
    for layer in amplora.lora_layers(plain).values():
        layer.fast = None  # the reference: plain autograd over F.linear
    assert all(layer.fast is not None for layer in amplora.lora_layers(fused).values())
    outs = []
    for model in (fused, plain):
        loss = model(ids, labels=ids).loss
        loss.backward()
        outs.append((loss.detach(), {n: p.grad for n, p in amplora.trainable_parameters(model)}))
    (loss_f, grads_f), (loss_p, grads_p) = outs
    torch.testing.assert_close(loss_f, loss_p, rtol=1e-6, atol=0)
    assert grads_f.keys() == grads_p.keys()
    for n in grads_f:
        torch.testing.assert_close(grads_f[n], grads_p[n], rtol=1e-4, atol=1e-6, msg=n)


@pytest.mark.parametrize("method", METHODS)
def test_merge_gives_a_plain_gpt2(gpt2, ids, tmp_path, method):
    model = adapted(gpt2, method)
    with torch.no_grad():
        before = model(ids).logits
        amplora.merge(model, keep_adapters=True)  # in place, then back
        assert rel_err(model(ids).logits, before) < 1e-5
        amplora.unmerge(model)
        assert rel_err(model(ids).logits, before) < 1e-5
    merged = amplora.merge(model)
    convs = {n: m for n, m in merged.named_modules() if isinstance(m, Conv1D)}
    assert sorted(convs) == ADAPTED and convs["transformer.h.0.mlp.c_fc"].weight.shape == (32, 128)
    merged.save_pretrained(tmp_path / "merged")  # loadable as a GPT-2 again: W stays (in, out)
    again = GPT2LMHeadModel.from_pretrained(tmp_path / "merged").eval()
    with torch.no_grad():
        assert rel_err(again(ids).logits, before) < 1e-5


def test_pissa_saves_a_delta_for_the_original_base(gpt2, ids, tmp_path):
    model = adapted(gpt2, init="pissa")
    amplora.save_adapter(model, tmp_path / "a")
    ref = PeftModel.from_pretrained(copy.deepcopy(gpt2), tmp_path / "a").eval()
    with torch.no_grad():
        assert rel_err(model(ids).logits, ref(ids).logits) < 1e-4


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("quantize", [None, "nf4"])
@pytest.mark.parametrize("preset", ["bf16-true", "fp16-mixed"])
def test_half_presets_dtypes_and_peft_reference(gpt2, ids, tmp_path, method, quantize, preset):
    model = adapted(gpt2, method, precision=preset, quantize=quantize)
    policy = amplora.policy_of(model)
    layers = amplora.lora_layers(model)
    assert all(quant.is_nf4(layer.base_layer) == (quantize == "nf4") for layer in layers.values())
    if quantize is None:
        assert {layer.base_layer.weight.dtype for layer in layers.values()} == {policy.storage}
    seen = []
    layers["transformer.h.0.mlp.c_fc"].register_forward_hook(lambda m, args, out: seen.append(out.dtype))
    amplora.save_adapter(model, tmp_path / "a")
    ref = PeftModel.from_pretrained(dense_fp32_twin(model, gpt2), tmp_path / "a").eval()
    out = model(ids, labels=ids)
    assert seen == [policy.compute], "the Conv1D layer computes in the policy's compute dtype"
    assert out.logits.dtype == torch.float32 and torch.isfinite(out.loss)
    out.loss.backward()
    grads = [p.grad for _, p in amplora.trainable_parameters(model)]
    assert all(g is not None and g.dtype == torch.float32 and torch.isfinite(g).all() for g in grads)
    with torch.no_grad():
        assert rel_err(out.logits, ref(ids).logits) < TOL[policy.compute]
    merged = amplora.merge(model)
    assert sorted(n for n, m in merged.named_modules() if isinstance(m, Conv1D)) == ADAPTED
    assert {p.dtype for p in merged.parameters()} == {policy.storage}


def test_a_gpt2_quantized_by_transformers_merges_back_to_conv1d(gpt2, ids, tmp_path):
    """transformers' bitsandbytes loading turns Conv1D into Linear4bit (W as (out, in)) and records `source_cls`:
    merge must give back Conv1D layers holding W as (in, out), so the merged model saves as a GPT-2 again."""
    gpt2.save_pretrained(tmp_path / "base")
    bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float32)
    model = GPT2LMHeadModel.from_pretrained(tmp_path / "base", quantization_config=bnb, device_map="cpu").eval()
    amplora.apply(model, r=4, alpha=8, precision="fp32")
    perturb_adapters(model)
    with torch.no_grad():
        before = model(ids).logits
    merged = amplora.merge(model)
    convs = {n: m for n, m in merged.named_modules() if isinstance(m, Conv1D)}
    assert sorted(convs) == ADAPTED and convs["transformer.h.0.attn.c_attn"].weight.shape == (32, 96)
    with torch.no_grad():
        assert rel_err(merged(ids).logits, before) < 1e-5


def test_an_adapter_for_another_gpt2_is_one_line_naming_the_key(gpt2, tmp_path):
    amplora.save_adapter(adapted(gpt2), tmp_path / "a")
    wider = GPT2LMHeadModel(GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=48, n_layer=2, n_head=4))
    with pytest.raises(AmploraError, match=r"transformer\.h\.0\.attn\.c_attn\.lora_A\.weight has shape \(4, 32\), "
                                           r"this model needs \(4, 48\) \(adapter made for another base\?\)"):
        amplora.load_adapter(wider, tmp_path / "a")
    assert not amplora.lora_layers(wider)
