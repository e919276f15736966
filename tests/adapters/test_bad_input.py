"""Bad input gets one clear line naming what is wrong and where, and leaves nothing half-written."""
from __future__ import annotations

import copy
import json

import pytest
import torch

import amplora
from amplora import AmploraError

from .conftest import perturb_adapters, tiny_llama


def one_line(excinfo) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg and msg
    return msg


def test_unknown_preset_lists_valid_ones(base_fp32):
    with pytest.raises(amplora.PrecisionError) as e:
        amplora.apply(copy.deepcopy(base_fp32), precision="bf15-mixed")
    msg = one_line(e)
    assert "'bf15-mixed'" in msg and all(p in msg for p in ("fp32", "bf16-true", "bf16-mixed", "fp16-mixed", "auto"))


def test_targets_matching_nothing_lists_linears(base_fp32):
    model = copy.deepcopy(base_fp32)
    with pytest.raises(AmploraError) as e:
        amplora.apply(model, targets=["qkv_proj"])
    msg = one_line(e)
    assert "qkv_proj" in msg and "q_proj" in msg and "down_proj" in msg and "lm_head" not in msg
    assert not amplora.lora_layers(model), "a failed apply leaves the model untouched"
    with pytest.raises(AmploraError, match="not a valid regex"):
        amplora.apply(model, targets="model.(layers")


@pytest.mark.parametrize("kwargs,needle", [
    (dict(method="vera"), "unknown method"), (dict(quantize="int3"), "unknown quantize"),
    (dict(init="olora"), "unknown init"), (dict(r=0), "positive"), (dict(dropout=1.5), "dropout"),
    (dict(method="dora", init="pissa"), "pissa"),
])
def test_bad_arguments(base_fp32, kwargs, needle):
    with pytest.raises(AmploraError) as e:
        amplora.apply(copy.deepcopy(base_fp32), **kwargs)
    assert needle in one_line(e)


def test_applying_twice_is_refused(base_fp32):
    model = amplora.apply(copy.deepcopy(base_fp32), precision="fp32")
    with pytest.raises(AmploraError, match="already has amplora adapters"):
        amplora.apply(model)


@pytest.fixture
def saved(base_fp32, tmp_path):
    model = amplora.apply(copy.deepcopy(base_fp32), r=4, alpha=8, precision="fp32")
    perturb_adapters(model)
    return amplora.save_adapter(model, tmp_path / "adapter")


def test_adapter_for_another_base_shape(saved):
    other = tiny_llama(hidden_size=96, intermediate_size=128)
    with pytest.raises(AmploraError) as e:
        amplora.load_adapter(other, saved, precision="fp32")
    msg = one_line(e)
    assert "base_model.model.model.layers.0." in msg and "shape" in msg and "another base" in msg


def test_adapter_for_another_base_modules(saved):
    other = tiny_llama(num_hidden_layers=1)
    with pytest.raises(AmploraError) as e:
        amplora.load_adapter(other, saved, precision="fp32")
    assert "model.layers.1." in one_line(e) and "no Linear module" in str(e.value)
    assert not amplora.lora_layers(other)


def test_corrupt_safetensors(saved, base_fp32):
    path = saved / "adapter_model.safetensors"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # truncated mid-tensor
    with pytest.raises(AmploraError) as e:
        amplora.load_adapter(copy.deepcopy(base_fp32), saved)
    assert "adapter_model.safetensors" in one_line(e) and "safetensors" in str(e.value)
    path.write_bytes(b"\x00garbage" * 10)
    with pytest.raises(AmploraError):
        amplora.load_adapter(copy.deepcopy(base_fp32), saved)


def test_missing_and_malformed_files(saved, base_fp32, tmp_path):
    with pytest.raises(AmploraError, match="adapter_config.json: not found"):
        amplora.load_adapter(copy.deepcopy(base_fp32), tmp_path / "nowhere")
    (saved / "adapter_config.json").write_text("{not json")
    with pytest.raises(AmploraError, match="invalid JSON"):
        amplora.load_adapter(copy.deepcopy(base_fp32), saved)
    (saved / "adapter_config.json").write_text(json.dumps({"peft_type": "IA3"}))
    with pytest.raises(AmploraError, match="not LORA"):
        amplora.load_adapter(copy.deepcopy(base_fp32), saved)


def test_nan_adapter_is_never_saved(base_fp32, tmp_path):
    model = amplora.apply(copy.deepcopy(base_fp32), r=4, alpha=8, precision="fp32")
    amplora.save_adapter(model, tmp_path / "adapter")
    before = (tmp_path / "adapter" / "adapter_model.safetensors").read_bytes()
    with torch.no_grad():
        amplora.lora_layers(model)["model.layers.1.self_attn.v_proj"].lora_B.weight[0, 0] = float("nan")
    with pytest.raises(AmploraError) as e:
        amplora.save_adapter(model, tmp_path / "adapter")
    assert "model.layers.1.self_attn.v_proj.lora_B.weight" in one_line(e)
    assert (tmp_path / "adapter" / "adapter_model.safetensors").read_bytes() == before, "old adapter kept intact"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adapter"], "no temp files left behind"
