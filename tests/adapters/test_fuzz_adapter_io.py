"""Fuzzing `amplora.load_adapter`: arbitrary adapter_config.json contents and arbitrary or damaged safetensors bytes
end in a loaded (finite) adapter or a one-line AmploraError, never another exception, never a hang."""
from __future__ import annotations

import copy
import json
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st
from safetensors.torch import save as save_bytes

import amplora
from amplora import AmploraError

from .conftest import tiny_llama

# one layer, 32 wide, GQA: q/o 32x32, k/v 32->16, MLP 32<->64; built once, a fresh copy per example
BASE = tiny_llama(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                  num_key_value_heads=1)
MODULES = {"model.layers.0.self_attn.q_proj": (32, 32), "model.layers.0.self_attn.v_proj": (32, 16),
           "model.layers.0.mlp.down_proj": (64, 32)}  # path: (in, out)
R = 2
FIELDS = ("peft_type", "r", "lora_alpha", "lora_dropout", "use_dora", "use_rslora", "target_modules",
          "base_model_name_or_path", "bias", "fan_in_fan_out", "lora_bias", "rank_pattern", "alpha_pattern",
          "modules_to_save", "layer_replication", "task_type", "inference_mode", "init_lora_weights")
VALID_CONFIG = {"peft_type": "LORA", "r": R, "lora_alpha": 4, "lora_dropout": 0.0, "use_dora": False,
                "use_rslora": False, "target_modules": ["q_proj", "v_proj", "down_proj"],
                "base_model_name_or_path": None, "bias": "none", "fan_in_fan_out": False, "rank_pattern": {},
                "alpha_pattern": {}, "modules_to_save": None, "task_type": "CAUSAL_LM", "inference_mode": True}
FUZZ = settings(derandomize=True, max_examples=100, deadline=timedelta(seconds=10), database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """One thread: on shared cores, OpenMP threads spin-waiting on these tiny ops cost more than they save."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def valid_tensors(dora: bool = False) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    out = {}
    for path, (fan_in, fan_out) in MODULES.items():
        out[f"base_model.model.{path}.lora_A.weight"] = torch.randn(R, fan_in, generator=g)
        out[f"base_model.model.{path}.lora_B.weight"] = torch.randn(fan_out, R, generator=g) * 0.1
        if dora:
            out[f"base_model.model.{path}.lora_magnitude_vector"] = torch.rand(fan_out, generator=g) + 0.5
    return out


VALID_BYTES = save_bytes(valid_tensors(), metadata={"format": "pt"})

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
# values near the edges of what each field accepts, mixed in with arbitrary JSON
edgy = st.sampled_from([0, -1, 1, 2, 3, 16, 17, 33, 64, 10**9, 0.5, 2.0, 1e308, -0.0, True, False, "", "LORA",
                        "none", "all", "q_proj", ["q_proj"], [], {}, {"q_proj": 4}, None])


@st.composite
def configs(draw):
    kind = draw(st.sampled_from(["fields", "fields", "fields", "top", "text"]))
    if kind == "top":  # any JSON value at the top level
        return json.dumps(draw(json_values))
    if kind == "text":  # any text / bytes at all
        return draw(st.binary(max_size=64) | st.text(max_size=64))
    cfg = dict(VALID_CONFIG)
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
        action = draw(st.sampled_from(["drop", "edge", "any"]))
        if action == "drop":
            cfg.pop(field, None)
        else:
            cfg[field] = draw(edgy if action == "edge" else json_values)
    for key, value in draw(st.dictionaries(st.text(max_size=10), json_values, max_size=3)).items():
        cfg.setdefault(key, value)
    return json.dumps(cfg)  # may write NaN / Infinity for non-finite floats: those must be refused too


DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int8, torch.uint8,
          torch.bool]


@st.composite
def tensor_sets(draw):
    """Valid keys with random shapes, dtypes and poisoned values; sometimes keys missing or invented."""
    dora = draw(st.booleans())
    tensors = valid_tensors(dora)
    for key in draw(st.lists(st.sampled_from(sorted(tensors)), max_size=3, unique=True)):
        action = draw(st.sampled_from(["drop", "shape", "dtype", "poison", "scale"]))
        t = tensors[key]
        if action == "drop":
            del tensors[key]
        elif action == "shape":
            shape = draw(st.lists(st.integers(0, 70), min_size=0, max_size=3))
            tensors[key] = torch.zeros(shape)
        elif action == "dtype":
            tensors[key] = t.to(draw(st.sampled_from(DTYPES)))
        elif action == "poison":
            t = t.clone()
            t.view(-1)[draw(st.integers(0, t.numel() - 1))] = draw(st.sampled_from(
                [float("nan"), float("inf"), -float("inf"), 1e38, 3.4e38]))
            tensors[key] = t
        else:
            tensors[key] = (t.double() * draw(st.sampled_from([0.0, 1e-30, 1e10, 1e19, 1e200])))
    for key in draw(st.lists(st.text(max_size=40), max_size=2)):
        tensors[key or "x"] = torch.zeros(2)
    return save_bytes({k: v.contiguous() for k, v in tensors.items()}), dora


@st.composite
def damaged_bytes(draw):
    data = bytearray(VALID_BYTES)
    kind = draw(st.sampled_from(["truncate", "flip", "random", "header"]))
    if kind == "truncate":
        return bytes(data[: draw(st.integers(0, len(data) - 1))])
    if kind == "random":
        return draw(st.binary(max_size=256))
    if kind == "header":  # the 8-byte header length: huge, zero, off by a little
        n = draw(st.sampled_from([0, 1, 2**63, 2**64 - 1, 10**8, len(data), len(data) - 8]) |
                 st.integers(0, 2**64 - 1))
        data[:8] = n.to_bytes(8, "little")
        return bytes(data)
    for _ in range(draw(st.integers(1, 8))):  # bit flips, mostly in the JSON header where they bite
        pos = draw(st.integers(0, min(len(data) - 1, 600)) | st.integers(0, len(data) - 1))
        data[pos] ^= 1 << draw(st.integers(0, 7))
    return bytes(data)


def load_or_refuse(config_text, weights: bytes) -> None:
    model = copy.deepcopy(BASE)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        raw = config_text.encode("utf-8", "surrogatepass") if isinstance(config_text, str) else config_text
        (d / "adapter_config.json").write_bytes(raw)
        (d / "adapter_model.safetensors").write_bytes(weights)
        try:
            amplora.load_adapter(model, d, precision="fp32")
        except AmploraError as e:
            msg = str(e)
            assert msg and "\n" not in msg, repr(msg)
            assert not amplora.lora_layers(model), "a refused adapter leaves the model untouched"
            return
    for name, p in model.named_parameters():  # loaded: nothing non-finite is in use
        assert torch.isfinite(p).all(), name
    with torch.no_grad():
        assert torch.isfinite(model(input_ids=torch.tensor([[3, 4, 5]])).logits).all()


@pytest.mark.timeout(120)
@FUZZ
@given(configs())
def test_any_config_loads_or_is_refused(config_text):
    load_or_refuse(config_text, VALID_BYTES)


@pytest.mark.timeout(120)
@FUZZ
@given(tensor_sets())
def test_any_tensors_load_or_are_refused(weights_and_dora):
    weights, dora = weights_and_dora
    load_or_refuse(json.dumps(dict(VALID_CONFIG, use_dora=dora)), weights)


@pytest.mark.timeout(120)
@FUZZ
@given(damaged_bytes())
def test_damaged_safetensors_bytes_are_refused_or_load(weights):
    load_or_refuse(json.dumps(VALID_CONFIG), weights)


def test_the_valid_adapter_loads():
    """The fuzzers' starting point loads, so they explore around a real adapter rather than a refused one."""
    load_or_refuse(json.dumps(VALID_CONFIG), VALID_BYTES)
    load_or_refuse(json.dumps(dict(VALID_CONFIG, use_dora=True)), save_bytes(valid_tensors(True)))
