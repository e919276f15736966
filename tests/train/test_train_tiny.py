"""End to end on `--model tiny`: every method / quantization / precision the CLI offers, in process."""
from __future__ import annotations

import json

import pytest
import torch
import yaml
from safetensors.torch import load_file

from amplora.precision import auto_preset
from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import FAST, read_metrics, run_cli

PRESETS = ["fp32", "bf16-true", "bf16-mixed", "fp16-mixed"]
COMBOS = [(m, q, p) for m in ("lora", "dora") for q in ("none", "nf4") for p in PRESETS] + [("lora", "none", "auto")]


def _check_outputs(out, method):
    adapter = out / "adapter"
    config = json.loads((adapter / "adapter_config.json").read_text())
    assert config["peft_type"] == "LORA" and config["base_model_name_or_path"] == "tiny"
    assert config["use_dora"] == (method == "dora")
    weights = load_file(adapter / "adapter_model.safetensors")
    assert weights and all(torch.isfinite(t).all() for t in weights.values())
    assert any(k.endswith("lora_magnitude_vector") for k in weights) == (method == "dora")
    records = read_metrics(out)
    kinds = [r["kind"] for r in records]
    assert kinds[0] == "before" and kinds[-1] == "after" and "train" in kinds and "eval" in kinds
    assert all(r["loss"] == r["loss"] for r in records if r["kind"] == "train")  # no NaN logged
    evals = [r for r in records if r["kind"] == "eval"]
    assert evals[0]["samples"] and isinstance(evals[0]["samples"][0]["output"], str)
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "Precision policy" in html and "before" in html
    resolved = yaml.safe_load((out / "config.yaml").read_text())
    assert resolved["method"] == method and resolved["model"] == "tiny"
    return weights


@pytest.mark.parametrize("method, quantize, precision", COMBOS, ids=["-".join(c) for c in COMBOS])
def test_every_combination_trains_end_to_end(tmp_path, alpaca_file, method, quantize, precision):
    out = tmp_path / "run"
    code = run_cli("train", *FAST, "--data", alpaca_file, "--method", method, "--quantize", quantize,
                   "--precision", precision, "--output", out, "--quiet")
    assert code == 0
    weights = _check_outputs(out, method)
    assert any(k.endswith("lora_B.weight") and t.abs().sum() > 0 for k, t in weights.items())  # it trained
    summary = json.loads((out / "summary.json").read_text())
    # auto follows the machine: bf16-true where the CPU has AVX512-BF16/AMX, fp32 elsewhere
    expected = precision if precision != "auto" else auto_preset("cpu")[0]
    assert summary["policy"]["name"] == expected and summary["policy"]["master"] == "fp32"


def test_chat_data_packing_and_accumulation(tmp_path, chat_file):
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--data", chat_file, "--packing", "--grad-accum", "2", "--output", out,
                   "--quiet") == 0
    _check_outputs(out, "lora")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["data"]["packing"] is True and summary["facts"]["batch"] == "2 x 2 accumulation"


def test_training_lowers_the_loss(tmp_path, alpaca_file):
    out = tmp_path / "run"
    assert run_cli("train", "--model", "tiny", "--data", alpaca_file, "--max-steps", "40", "--batch-size", "8",
                   "--lr", "1e-2", "--eval-every", "0", "--eval-limit", "1", "--max-new-tokens", "2",
                   "--log-every", "5", "--output", out, "--quiet") == 0
    losses = [r["loss"] for r in read_metrics(out) if r["kind"] == "train"]
    assert losses[-1] < 0.3 * losses[0], losses


def test_fp16_overflow_steps_are_skipped_counted_and_training_recovers(tmp_path, alpaca_file):
    out = tmp_path / "run"
    # a huge initial loss scale: the first steps overflow in fp16, the scaler backs off, training goes on
    assert run_cli("train", *FAST, "--max-steps", "12", "--data", alpaca_file, "--precision", "fp16-mixed",
                   "--init-loss-scale", str(2.0 ** 24), "--output", out, "--quiet") == 0
    train = [r for r in read_metrics(out) if r["kind"] == "train"]
    skipped = train[-1]["skipped_steps"]
    assert 0 < skipped < 12
    assert train[-1]["loss_scale"] < 2.0 ** 24
    assert not train[-1]["skipped_steps"] > train[-2]["skipped_steps"]  # the last steps were real updates
    summary = json.loads((out / "summary.json").read_text())
    assert summary["facts"]["skipped (non-finite) steps"] == skipped
    weights = _check_outputs(out, "lora")
    assert any(k.endswith("lora_B.weight") and t.abs().sum() > 0 for k, t in weights.items())


def test_yaml_config_flags_override_and_resolved_config_written(tmp_path, alpaca_file):
    cfg = tmp_path / "run.yaml"
    cfg.write_text(f"model: tiny\ndata: {alpaca_file}\nr: 4\nalpha: 8\nmax-steps: 2\nbatch_size: 2\n"
                   f"eval_limit: 1\nmax_new_tokens: 2\neval_every: 0\n")
    out = tmp_path / "run"
    assert run_cli("train", cfg, "--r", "2", "--output", out, "--quiet") == 0
    resolved = yaml.safe_load((out / "config.yaml").read_text())
    assert resolved["r"] == 2 and resolved["alpha"] == 8 and resolved["max_steps"] == 2
    assert json.loads((out / "adapter" / "adapter_config.json").read_text())["r"] == 2


def test_adapter_loads_in_peft_with_identical_weights(tmp_path, alpaca_file):
    peft = pytest.importorskip("peft")
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--data", alpaca_file, "--method", "dora", "--output", out, "--quiet") == 0
    saved = load_file(out / "adapter" / "adapter_model.safetensors")
    model = peft.PeftModel.from_pretrained(build_model(build_tokenizer()), str(out / "adapter"))
    state = peft.get_peft_model_state_dict(model)
    assert set(state) == set(saved)
    for key, tensor in saved.items():
        torch.testing.assert_close(state[key].float(), tensor, rtol=0, atol=0)


def test_peft_options_train_and_load_in_peft(tmp_path, alpaca_file):
    """--modules-to-save, --bias, --exclude-modules, --rank-pattern and --alpha-pattern reach the adapter with PEFT's
    meaning: PEFT loads the adapter, and its model's logits are amplora's."""
    peft = pytest.importorskip("peft")
    import amplora

    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--data", alpaca_file, "--r", "4", "--modules-to-save", "lm_head",
                   "--bias", "all", "--exclude-modules", "down_proj", "--rank-pattern", "q_proj=2",
                   "--alpha-pattern", "q_proj=6", "--lr", "1e-2", "--output", out, "--quiet") == 0
    config = json.loads((out / "adapter" / "adapter_config.json").read_text())
    assert config["modules_to_save"] == ["lm_head"] and config["bias"] == "all"
    assert config["rank_pattern"] == {"q_proj": 2} and config["alpha_pattern"] == {"q_proj": 6.0}
    saved = load_file(out / "adapter" / "adapter_model.safetensors")
    assert not any("down_proj" in k for k in saved)
    assert any(k.endswith("q_proj.lora_A.weight") and t.shape[0] == 2 for k, t in saved.items())
    base = build_model(build_tokenizer())
    head = [t for k, t in saved.items() if "lm_head" in k]
    assert head and not torch.equal(head[0], base.lm_head.weight)  # the head trained, apart from the embeddings
    resolved = yaml.safe_load((out / "config.yaml").read_text())
    assert resolved["modules_to_save"] == ["lm_head"] and resolved["rank_pattern"] == {"q_proj": 2}
    reference = peft.PeftModel.from_pretrained(build_model(build_tokenizer()), str(out / "adapter")).eval()
    mine = amplora.load_adapter(build_model(build_tokenizer()), out / "adapter", precision="fp32").eval()
    ids = torch.randint(3, 60, (2, 12), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        torch.testing.assert_close(mine(input_ids=ids).logits, reference(input_ids=ids).logits, rtol=1e-4,
                                   atol=1e-4)  # fp32 against fp32: summation order only


def test_start_up_lines_hold_the_trainable_summary(tmp_path, alpaca_file, capsys):
    assert run_cli("train", *FAST, "--max-steps", "1", "--eval-every", "0", "--no-exact-match", "--data", alpaca_file,
                   "--output", tmp_path / "run") == 0
    text = capsys.readouterr().out
    assert "trainable params: " in text and "adapted modules: 14 (q_proj x2, k_proj x2," in text


def test_existing_run_is_not_overwritten_without_flag(tmp_path, alpaca_file, capsys):
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--max-steps", "1", "--data", alpaca_file, "--output", out, "--quiet") == 0
    before = (out / "adapter" / "adapter_model.safetensors").read_bytes()
    assert run_cli("train", *FAST, "--max-steps", "1", "--data", alpaca_file, "--output", out, "--quiet") == 2
    assert "already holds a run" in capsys.readouterr().err
    assert (out / "adapter" / "adapter_model.safetensors").read_bytes() == before
    assert run_cli("train", *FAST, "--max-steps", "1", "--data", alpaca_file, "--output", out, "--overwrite",
                   "--seed", "5", "--quiet") == 0


def test_truncation_is_reported(tmp_path, alpaca_file):
    out = tmp_path / "run"
    # the tiny tokenizer is byte-level: the templated examples are 26-27 tokens; 24 cuts the end of each answer
    assert run_cli("train", *FAST, "--data", alpaca_file, "--max-length", "24", "--output", out, "--quiet") == 0
    data = json.loads((out / "summary.json").read_text())["data"]
    assert data["truncated"] > 0 and data["examples"] == 14 and data["max_length"] == 24
    assert "truncated" in (out / "report.html").read_text()


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_activation_checkpointing_changes_memory_not_results(tmp_path, alpaca_file, method):
    """Recomputing each layer in backward replays the same fp32 operations: same losses, same adapter."""
    runs = {}
    for flag in ([], ["--activation-checkpointing"]):
        out = tmp_path / ("ckpt" if flag else "plain")
        assert run_cli("train", *FAST, "--method", method, "--dropout", "0", "--data", alpaca_file,
                       "--output", out, "--quiet", *flag) == 0
        runs[bool(flag)] = out
    facts = [json.loads((runs[k] / "summary.json").read_text())["facts"] for k in (False, True)]
    assert [f["activation checkpointing"] for f in facts] == [False, True]  # read off the model itself
    losses = [[r["loss"] for r in read_metrics(runs[k]) if r["kind"] == "train"] for k in (False, True)]
    assert losses[0] == pytest.approx(losses[1], rel=1e-6, abs=0)
    a, b = (load_file(runs[k] / "adapter" / "adapter_model.safetensors") for k in (False, True))
    assert sorted(a) == sorted(b)
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=1e-6, msg=key)
