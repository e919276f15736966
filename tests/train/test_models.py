"""`--model` resolution, the tiny model, and the embedded model's cache bookkeeping (no conversion here)."""
from __future__ import annotations

import pytest
import torch

from amplora.errors import AmploraError
from amplora.train.embedded_model import cache_root, gguf_path
from amplora.train.model_loader import canonical_model_name, load_model
from amplora.train.tiny_model import build_model, build_tokenizer


def test_tiny_model_is_the_same_whatever_the_global_seed():
    tok = build_tokenizer()
    torch.manual_seed(1)
    a = build_model(tok)
    torch.manual_seed(2)
    b = build_model(tok)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


def test_tiny_tokenizer_round_trips_any_text_and_has_a_chat_template():
    tok = build_tokenizer()
    text = "naïve – 数据 🙂 mat1 != c10::BFloat16\n\ttab"
    assert tok.decode(tok(text, add_special_tokens=False)["input_ids"]) == text
    rendered = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                       add_generation_prompt=True)
    assert rendered == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    assert tok.eos_token == "<|im_end|>" and tok.pad_token_id != tok.eos_token_id


def test_model_names(tmp_path):
    assert canonical_model_name("SmolLM2-135M") == "smollm2-135m" and canonical_model_name("tiny") == "tiny"
    with pytest.raises(AmploraError, match="unknown model 'nope'"):
        canonical_model_name("nope")
    with pytest.raises(AmploraError, match="has no config.json"):
        canonical_model_name(str(tmp_path))


def test_local_model_directory_loads(tmp_path):
    tok = build_tokenizer()
    build_model(tok).save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    lm = load_model(str(tmp_path))
    assert lm.name == str(tmp_path.resolve()) and lm.tokenizer.chat_template


def test_a_model_directory_with_pickled_weights_is_refused_unread(tmp_path):
    tok = build_tokenizer()
    model = build_model(tok)
    model.config.save_pretrained(tmp_path)
    torch.save(model.state_dict(), tmp_path / "pytorch_model.bin")  # the older, pickle-based weights file
    tok.save_pretrained(tmp_path)
    assert (tmp_path / "pytorch_model.bin").is_file() and not list(tmp_path.glob("*.safetensors"))
    with pytest.raises(AmploraError, match="pickled .bin files, which amplora does not load") as info:
        load_model(str(tmp_path))
    assert "\n" not in str(info.value)


def test_cache_location_and_embedded_file(monkeypatch, tmp_path):
    monkeypatch.setenv("AMPLORA_CACHE", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    monkeypatch.delenv("AMPLORA_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_root() == tmp_path / "x" / "amplora"
    assert gguf_path().stat().st_size > 50_000_000  # the wheel's GGUF file, found without importing the package
