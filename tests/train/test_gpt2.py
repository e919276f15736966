"""`amplora train --model <a local GPT-2 directory>`: the default targets adapt its Conv1D layers, not the tied head."""
from __future__ import annotations

import json

import torch
from safetensors.torch import load_file
from transformers import GPT2Config, GPT2LMHeadModel

from amplora.train.tiny_model import build_tokenizer

from .conftest import run_cli


def gpt2_directory(path):
    tok = build_tokenizer()
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(tok), n_positions=128, n_embd=32, n_layer=2, n_head=4,
                        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    GPT2LMHeadModel(config).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def weights_of(run_dir):
    return load_file(run_dir / "adapter" / "adapter_model.safetensors")


def test_train_adapts_c_attn_c_proj_c_fc(tmp_path, alpaca_file):
    model = gpt2_directory(tmp_path / "gpt2")
    out = tmp_path / "run"
    assert run_cli("train", "--model", model, "--data", alpaca_file, "--max-steps", "2", "--batch-size", "2",
                   "--eval-limit", "1", "--eval-loss-limit", "1", "--samples", "0", "--max-new-tokens", "2",
                   "--output", out, "--quiet") == 0
    config = json.loads((out / "adapter" / "adapter_config.json").read_text())
    assert config["target_modules"] == "all-linear"  # as asked; the keys below show which modules it took
    assert {k.split(".")[-3] for k in weights_of(out)} == {"c_attn", "c_fc", "c_proj"}
    assert config["fan_in_fan_out"] is True
    weights = weights_of(out)
    assert len(weights) == 2 * 2 * 4 and not any("lm_head" in k or "wte" in k for k in weights)
    assert weights["base_model.model.transformer.h.0.attn.c_attn.lora_B.weight"].shape == (96, 16)
    assert any(k.endswith("lora_B.weight") and t.abs().sum() > 0 for k, t in weights.items())  # it trained
