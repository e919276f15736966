"""The embedded SmolLM2-135M-Instruct: converted from its GGUF offline, trained a few steps, loaded by PEFT."""
from __future__ import annotations

import json
import socket

import pytest
import torch

from .conftest import run_cli


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access attempted during an offline test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.slow
def test_embedded_model_trains_offline_and_peft_loads_the_adapter(tmp_path, monkeypatch, no_network):
    peft = pytest.importorskip("peft")
    from transformers import AutoModelForCausalLM

    import amplora
    from amplora.train.embedded_model import STAMP, cached_model_dir

    monkeypatch.setenv("AMPLORA_CACHE", str(tmp_path / "cache"))  # a cold cache: the GGUF conversion runs too
    out = tmp_path / "run"
    assert run_cli("train", "--max-steps", "2", "--batch-size", "2", "--eval-limit", "2", "--eval-every", "0",
                   "--max-new-tokens", "8", "--output", out, "--quiet") == 0

    cache = cached_model_dir()  # already converted: returns at once
    config = json.loads((cache / "config.json").read_text())
    assert "quantization_config" not in config and config["model_type"] == "llama"
    assert (cache / "model.safetensors").is_file() and (cache / STAMP).is_file()

    adapter = out / "adapter"
    recorded = json.loads((adapter / "adapter_config.json").read_text())
    assert recorded["base_model_name_or_path"] == "smollm2-135m"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["policy"]["device"] == "cpu" and summary["before"]["n"] == 2

    # PEFT, the oracle, loads the adapter onto the cached base and computes the same logits as amplora
    ids = torch.tensor([[1, 504, 3458, 282, 4235, 30]])
    base = AutoModelForCausalLM.from_pretrained(cache, dtype=torch.float32, local_files_only=True)
    reference = peft.PeftModel.from_pretrained(base, str(adapter)).eval()
    ours = amplora.load_adapter(AutoModelForCausalLM.from_pretrained(cache, dtype=torch.float32,
                                                                     local_files_only=True),
                                adapter, precision="fp32").eval()
    with torch.no_grad():
        want, got = reference(input_ids=ids).logits, ours(input_ids=ids).logits
    assert float((got - want).abs().max() / want.abs().max()) < 1e-4
    lora_b = [t for k, t in peft.get_peft_model_state_dict(reference).items() if k.endswith("lora_B.weight")]
    assert any(t.abs().sum() > 0 for t in lora_b)  # the trained weights, not a fresh init
