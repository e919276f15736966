"""Every PEFT LoraConfig field is honored or refused by name: per-module ranks and alphas, layer selection,
exclusions, modules_to_save copies, trained biases and the initializations, both ways against real PEFT on a tiny
Llama (PEFT-made adapter -> amplora.load_adapter; amplora.apply + save_adapter -> PeftModel.from_pretrained), fp32
logits within 1e-5 relative; the rest refused with one line naming the file and the key."""
from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import peft
import pytest
import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import LlamaForSequenceClassification

import amplora
from amplora import AmploraError
from amplora.adapters import peft_config

from .conftest import VOCAB, rel_err, tiny_config, tiny_llama

TOL = 1e-5  # fp32 logits, the same adapter: amplora and PEFT differ by summation order only
SMALL = dict(hidden_size=32, intermediate_size=64, num_attention_heads=2, num_key_value_heads=1,
             attention_bias=True, mlp_bias=True)  # biases, for the bias option
DOC = Path(__file__).resolve().parents[2] / "docs" / "peft-compat.md"

# (PEFT LoraConfig kwargs, the same adapter as amplora.apply kwargs)
CASES = {
    "rank_alpha_pattern": (
        dict(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "down_proj"],
             rank_pattern={"v_proj": 2, r"model.layers.1.self_attn.q_proj": 6}, alpha_pattern={"down_proj": 3}),
        dict(r=4, alpha=8, targets=["q_proj", "v_proj", "down_proj"],
             rank_pattern={"v_proj": 2, r"model.layers.1.self_attn.q_proj": 6}, alpha_pattern={"down_proj": 3})),
    "layers_to_transform": (
        dict(r=4, lora_alpha=8, target_modules=["q_proj", "up_proj"], layers_to_transform=[1], layers_pattern="layers"),
        dict(r=4, alpha=8, targets=["q_proj", "up_proj"], layers_to_transform=[1], layers_pattern="layers")),
    "exclude_rslora": (
        dict(r=4, lora_alpha=8, target_modules="all-linear", exclude_modules=["o_proj", "gate_proj"],
             use_rslora=True),
        dict(r=4, alpha=8, targets="all-linear", exclude_modules=["o_proj", "gate_proj"], rslora=True)),
    "regex_targets": (
        dict(r=2, lora_alpha=4, target_modules=r".*\.(k|down)_proj", exclude_modules=r".*layers\.0\.mlp.*"),
        dict(r=2, alpha=4, targets=r".*\.(k|down)_proj", exclude_modules=r".*layers\.0\.mlp.*")),
    "modules_to_save": (
        dict(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], modules_to_save=["lm_head"]),
        dict(r=4, alpha=8, targets=["q_proj", "v_proj"], modules_to_save=["lm_head"])),
    "bias_lora_only": (
        dict(r=4, lora_alpha=8, target_modules=["q_proj", "down_proj"], bias="lora_only"),
        dict(r=4, alpha=8, targets=["q_proj", "down_proj"], bias="lora_only")),
    "bias_all_dora": (
        dict(r=4, lora_alpha=8, target_modules=["v_proj", "up_proj"], bias="all", use_dora=True),
        dict(r=4, alpha=8, targets=["v_proj", "up_proj"], bias="all", method="dora")),
    "init_false_gaussian": (
        dict(r=4, lora_alpha=8, target_modules=["q_proj"], init_lora_weights=False),
        dict(r=4, alpha=8, targets=["q_proj"], init="gaussian")),
}


@pytest.fixture(scope="module")
def base():
    return tiny_llama(**SMALL)


@pytest.fixture(scope="module")
def ids():
    return torch.randint(3, VOCAB, (2, 12), generator=torch.Generator().manual_seed(1))


def perturb(model, seed: int = 5) -> None:
    """Move every trainable tensor (adapters, copies, biases): each one must reach the other side."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in model.named_parameters():
            if p.requires_grad:
                p.add_(torch.randn(p.shape, generator=g) * 0.1)


def logits(model, ids) -> torch.Tensor:
    with torch.no_grad():
        return model.eval()(input_ids=ids).logits


def peft_trainable(model) -> set[str]:
    """PEFT's trainable parameter names as amplora names them (no wrapper, no adapter name)."""
    out = set()
    for name, p in model.named_parameters():
        if p.requires_grad:
            name = name.removeprefix("base_model.model.").replace(".default", "").replace("modules_to_save.", "")
            out.add(name.replace("lora_magnitude_vector.weight", "lora_magnitude_vector"))
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_peft_made_adapter_loads(base, ids, tmp_path, case):
    theirs = get_peft_model(copy.deepcopy(base), LoraConfig(**CASES[case][0]))
    perturb(theirs)
    theirs.save_pretrained(tmp_path / "peft")
    ours = amplora.load_adapter(copy.deepcopy(base), tmp_path / "peft", precision="fp32", trainable=True)
    assert {n for n, _ in amplora.trainable_parameters(ours)} == peft_trainable(theirs)
    assert rel_err(logits(ours, ids), logits(theirs, ids)) < TOL


@pytest.mark.parametrize("case", list(CASES))
def test_amplora_made_adapter_loads_in_peft(base, ids, tmp_path, case):
    ours = amplora.apply(copy.deepcopy(base), precision="fp32", **CASES[case][1])
    reference = get_peft_model(copy.deepcopy(base), LoraConfig(**CASES[case][0]))
    assert {n for n, _ in amplora.trainable_parameters(ours)} == peft_trainable(reference)
    perturb(ours)
    amplora.save_adapter(ours, tmp_path / "ours")
    theirs = PeftModel.from_pretrained(copy.deepcopy(base), tmp_path / "ours")
    assert rel_err(logits(theirs, ids), logits(ours, ids)) < TOL
    # and back: amplora reads its own file as the same model
    again = amplora.load_adapter(copy.deepcopy(base), tmp_path / "ours", precision="fp32")
    assert rel_err(logits(again, ids), logits(ours, ids)) < TOL


def test_config_says_what_was_asked(base, tmp_path):
    """target_modules as the user wrote them (leaf names, 'all-linear', a regex), not a list of module paths."""
    for targets, written in ((["q_proj", "v_proj"], ["q_proj", "v_proj"]), ("all-linear", "all-linear"),
                             ("v_proj", ["v_proj"]), (r".*\.(k|down)_proj", r".*\.(k|down)_proj")):
        model = amplora.apply(copy.deepcopy(base), r=2, precision="fp32", targets=targets,
                              rank_pattern={"v_proj": 3} if "v_proj" in targets else None)
        cfg = json.loads((amplora.save_adapter(model, tmp_path / "a") / "adapter_config.json").read_text())
        assert cfg["target_modules"] == written
        assert cfg["rank_pattern"] == ({"v_proj": 3} if "v_proj" in targets else {})
    model = amplora.apply(copy.deepcopy(base), r=2, precision="fp32", targets=["q_proj"], init="random")
    assert all(layer.lora_B.weight.abs().sum() > 0 for layer in amplora.lora_layers(model).values())
    cfg = json.loads((amplora.save_adapter(model, tmp_path / "a") / "adapter_config.json").read_text())
    assert cfg["init_lora_weights"] is False


def test_pissa_adapter_from_peft(base, ids, tmp_path):
    """init_lora_weights='pissa': the adapter applies to PiSSA's residual base, which amplora rebuilds."""
    theirs = get_peft_model(copy.deepcopy(base), LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "o_proj"],
                                                            init_lora_weights="pissa", rank_pattern={"o_proj": 2}))
    perturb(theirs)
    theirs.save_pretrained(tmp_path / "peft")
    ours = amplora.load_adapter(copy.deepcopy(base), tmp_path / "peft", precision="fp32")
    assert rel_err(logits(ours, ids), logits(theirs, ids)) < TOL
    amplora.save_adapter(ours, tmp_path / "ours")  # as plain LoRA (rank 2r) against the original base
    back = PeftModel.from_pretrained(copy.deepcopy(base), tmp_path / "ours")
    assert rel_err(logits(back, ids), logits(theirs, ids)) < TOL


def test_seq_cls_head_round_trip(ids, tmp_path):
    """A classification head PEFT saves whole (task_type SEQ_CLS adds it to modules_to_save) loads and is saved
    back for PEFT."""
    torch.manual_seed(0)
    head = LlamaForSequenceClassification(tiny_config(num_labels=3, **SMALL)).eval()
    theirs = get_peft_model(copy.deepcopy(head), LoraConfig(task_type="SEQ_CLS", r=4, target_modules=["q_proj"]))
    perturb(theirs)
    theirs.save_pretrained(tmp_path / "peft")
    ours = amplora.load_adapter(copy.deepcopy(head), tmp_path / "peft", precision="fp32")
    assert rel_err(logits(ours, ids), logits(theirs, ids)) < TOL
    amplora.save_adapter(ours, tmp_path / "ours")
    back = PeftModel.from_pretrained(copy.deepcopy(head), tmp_path / "ours")
    assert rel_err(logits(back, ids), logits(theirs, ids)) < TOL


def test_copies_and_biases_train_as_fp32_masters(base):
    model = amplora.apply(copy.deepcopy(base), r=2, targets=["q_proj"], precision="bf16-true",
                          modules_to_save=["lm_head"], bias="lora_only")
    trained = dict(amplora.trainable_parameters(model))
    assert {"lm_head.weight", "model.layers.0.self_attn.q_proj.base_layer.bias"} <= set(trained)
    assert all(p.dtype == torch.float32 for p in trained.values())
    assert model.model.embed_tokens.weight.dtype == torch.bfloat16 and not model.model.embed_tokens.weight.requires_grad


def test_every_lora_config_field_is_honored_refused_or_ignored():
    """A field PEFT adds that amplora has not classified fails here, as does one the table lists wrongly."""
    fields = {f.name for f in dataclasses.fields(peft.LoraConfig)}
    known = set(peft_config.HONORED) | set(peft_config.IGNORED) | set(peft_config.REFUSED)
    assert fields - known == set(), "PEFT fields amplora neither honors, refuses nor ignores"
    assert known - fields == set(), "amplora lists fields PEFT does not have"
    doc = DOC.read_text()
    assert [f for f in sorted(fields) if f"`{f}`" not in doc] == [], "docs/peft-compat.md lacks fields"


def _non_default(name: str):
    default = {f.name: f for f in dataclasses.fields(peft.LoraConfig)}[name].default
    return True if default is False else {"x": 1} if name.endswith("_config") else [1]


@pytest.fixture(scope="module")
def saved(base, tmp_path_factory):
    model = amplora.apply(copy.deepcopy(base), r=2, targets=["q_proj"], precision="fp32")
    return amplora.save_adapter(model, tmp_path_factory.mktemp("a") / "adapter")


def _load_error(base, saved, tmp_path, **changes) -> str:
    d = tmp_path / "adapter"
    d.mkdir(exist_ok=True)
    (d / "adapter_model.safetensors").write_bytes((saved / "adapter_model.safetensors").read_bytes())
    cfg = json.loads((saved / "adapter_config.json").read_text())
    (d / "adapter_config.json").write_text(json.dumps({**cfg, **changes}))
    with pytest.raises(AmploraError) as e:
        amplora.load_adapter(copy.deepcopy(base), d, precision="fp32")
    msg = str(e.value)
    assert "\n" not in msg and "adapter_config.json" in msg
    return msg


@pytest.mark.parametrize("field", sorted(peft_config.REFUSED))
def test_refused_fields_name_themselves(base, saved, tmp_path, field):
    assert f"key {field!r} is set" in _load_error(base, saved, tmp_path, **{field: _non_default(field)})


@pytest.mark.parametrize("init", ["olora", "pissa_niter_4", "corda", "loftq", "lora_ga", "mica", "bogus"])
def test_irreproducible_inits_are_refused(base, saved, tmp_path, init):
    assert "'init_lora_weights'" in _load_error(base, saved, tmp_path, init_lora_weights=init)


def test_unknown_field_is_refused_and_bad_options_named(base, saved, tmp_path):
    assert "'use_magic'" in _load_error(base, saved, tmp_path, use_magic=True)
    assert "'rank_pattern'" in _load_error(base, saved, tmp_path, rank_pattern={"q_proj": 0})
    assert "'bias'" in _load_error(base, saved, tmp_path, bias="some")
    assert "'layers_pattern'" in _load_error(base, saved, tmp_path, layers_pattern="layers")
    assert "is not one the target_modules" in _load_error(base, saved, tmp_path, target_modules=["v_proj"])


@pytest.mark.parametrize("kwargs,needle", [
    (dict(rank_pattern={"nothing_here": 2}), "matches no adapted module"),
    (dict(rank_pattern={"q_proj": 0}), "rank_pattern must be"),
    (dict(modules_to_save=["no_such_head"]), "names no module"),
    (dict(targets="all-linear", layers_to_transform=[0]), "layers_to_transform"),
    (dict(exclude_modules="(", targets=["q_proj"]), "not a valid regex"),
    (dict(bias="some"), "bias must be"),
    (dict(bias="lora_only", quantize="nf4"), "over an NF4 base"),  # bitsandbytes would halve the trained bias
])
def test_apply_refuses_bad_options(base, kwargs, needle):
    with pytest.raises(AmploraError, match=needle):
        amplora.apply(copy.deepcopy(base), **{"targets": ["q_proj"], **kwargs})


def test_merge_gives_one_dtype_with_copies_and_biases(base, ids):
    """The fp32 copies and biases become the storage dtype in the merged plain model, which then runs."""
    model = amplora.apply(copy.deepcopy(base), r=2, targets=["q_proj"], precision="bf16-true",
                          modules_to_save=["lm_head"], bias="all")
    perturb(model)
    adapted = logits(model, ids)
    merged = amplora.merge(model)
    assert {p.dtype for p in merged.parameters()} == {torch.bfloat16}
    assert rel_err(logits(merged, ids), adapted) < 2e-2  # bf16 rounding of the folded weights
