"""`generate`, `chat`, `merge`, `eval` on an adapter trained by `amplora train --model tiny`."""
from __future__ import annotations

import io
import json

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

import amplora
from amplora.adapters.io import CHAT_TEMPLATE_NAME
from amplora.app.commands import load_for_inference
from amplora.train.chat_templates import TEMPLATES
from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import alpaca_rows, run_cli, write_jsonl


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("trained")
    data = write_jsonl(d / "data.jsonl", alpaca_rows())
    out = d / "run"
    assert run_cli("train", "--model", "tiny", "--data", data, "--method", "dora", "--max-steps", "30",
                   "--batch-size", "8", "--lr", "1e-2", "--eval-every", "0", "--eval-limit", "2",
                   "--max-new-tokens", "4", "--output", out, "--quiet") == 0
    return out, data


def test_generate_uses_the_recorded_base_and_the_adapter(trained, capsys):
    out, _ = trained
    assert run_cli("generate", "--adapter", out / "adapter", "--max-new-tokens", "3", "3+1?") == 0
    answer = capsys.readouterr().out.strip()
    # the command's own defaults (precision and device "auto"): a greedy answer may differ between precisions
    model, tok = load_for_inference(str(out / "adapter"), None)
    from amplora.train.generation import generate

    assert answer == generate(model, tok, [[{"role": "user", "content": "3+1?"}]], 3)[0]


def test_a_chat_template_given_to_train_travels_with_the_adapter(trained, tmp_path):
    assert not (trained[0] / "adapter" / CHAT_TEMPLATE_NAME).exists()  # the tokenizer's own: nothing to carry
    data = write_jsonl(tmp_path / "data.jsonl", alpaca_rows(8))
    out = tmp_path / "run"
    assert run_cli("train", "--model", "tiny", "--data", data, "--chat-template", "zephyr", "--max-steps", "2",
                   "--batch-size", "2", "--eval-limit", "1", "--eval-loss-limit", "1", "--samples", "0",
                   "--max-new-tokens", "2", "--output", out, "--quiet") == 0
    assert (out / "adapter" / CHAT_TEMPLATE_NAME).read_text() == TEMPLATES["zephyr"]
    assert load_for_inference(str(out / "adapter"), None)[1].chat_template == TEMPLATES["zephyr"]
    chosen = load_for_inference(str(out / "adapter"), None, chat_template="chatml")[1]  # --chat-template wins
    assert chosen.chat_template == TEMPLATES["chatml"]
    assert run_cli("merge", "--adapter", out / "adapter", "--out", tmp_path / "merged") == 0
    assert AutoTokenizer.from_pretrained(tmp_path / "merged").chat_template == TEMPLATES["zephyr"]


def test_chat_reads_turns_until_eof(trained, capsys, monkeypatch):
    out, _ = trained
    monkeypatch.setattr("sys.stdin", io.StringIO("1+1?\n/reset\n2+2?\n"))
    assert run_cli("chat", "--adapter", out / "adapter", "--max-new-tokens", "3") == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 2  # one answer per message, /reset is silent


def test_eval_scores_held_out_data(trained, capsys):
    out, data = trained
    assert run_cli("eval", "--adapter", out / "adapter", "--data", data, "--limit", "4", "--max-new-tokens", "3",
                   "--json") == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n"] == 4 and 0.0 <= result["exact_match"] <= 1.0


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_merge_writes_a_model_transformers_loads(trained, tmp_path, dtype):
    out, _ = trained
    merged_dir = tmp_path / "merged"
    assert run_cli("merge", "--adapter", out / "adapter", "--out", merged_dir, "--dtype", dtype) == 0
    merged = AutoModelForCausalLM.from_pretrained(merged_dir, local_files_only=True)
    assert merged.model.layers[0].self_attn.q_proj.weight.dtype == amplora.precision.parse_dtype(dtype)

    adapted = amplora.load_adapter(build_model(build_tokenizer()), out / "adapter", precision="fp32")
    ids = torch.tensor([[5, 40, 41, 60, 2, 7]])
    with torch.no_grad():
        want = adapted(input_ids=ids).logits
        got = merged.float()(input_ids=ids).logits
    tol = 1e-4 if dtype == "fp32" else 5e-2  # bf16 weights: 8 mantissa bits
    assert float((got - want).abs().max() / want.abs().max()) < tol


def test_merge_refuses_a_non_empty_out(trained, tmp_path, capsys):
    out, _ = trained
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "f").write_text("keep me")
    assert run_cli("merge", "--adapter", out / "adapter", "--out", tmp_path / "taken") == 2
    assert "not empty" in capsys.readouterr().err and (tmp_path / "taken" / "f").read_text() == "keep me"
