"""Adapter directories as input: the config and every tensor are checked before use, one line naming the file and
the key; and what save_adapter writes follows the user's umask."""
from __future__ import annotations

import copy
import os
import struct

import pytest
import torch

import amplora
from amplora import AmploraError

from .conftest import perturb_adapters

A0 = "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"
B0 = "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight"


@pytest.fixture(scope="module")
def saved_adapter(base_fp32, tmp_path_factory):
    model = amplora.apply(copy.deepcopy(base_fp32), method="dora", r=4, alpha=8, precision="fp32",
                          targets=["q_proj", "v_proj"])
    perturb_adapters(model)
    return amplora.save_adapter(model, tmp_path_factory.mktemp("a") / "adapter")


def load_error(base, d) -> str:
    model = copy.deepcopy(base)
    with pytest.raises(AmploraError) as e:
        amplora.load_adapter(model, d, precision="fp32")
    msg = str(e.value)
    assert msg and "\n" not in msg
    assert not amplora.lora_layers(model), "a refused adapter leaves the model untouched"
    return msg


@pytest.mark.parametrize("changes,needle", [
    (dict(r=0), "'r' must be a positive integer"),
    (dict(r=-4), "'r' must be a positive integer"),
    (dict(r="abc"), "'r' must be a positive integer"),
    (dict(r=4.0), "'r' must be a positive integer"),
    (dict(r=True), "'r' must be a positive integer"),
    (dict(r=10**9), "'r' is 1000000000, larger than module"),
    (dict(r=33), "v_proj' allows (min(in, out) = 32)"),  # q_proj is 64 wide; v_proj 64 -> 32 (GQA)
    (dict(lora_alpha=0), "'lora_alpha' must be a finite positive number"),
    (dict(lora_alpha=-1.5), "'lora_alpha'"),
    (dict(lora_alpha="8"), "'lora_alpha'"),
    (dict(lora_alpha=False), "'lora_alpha'"),
    (dict(lora_alpha=float("inf")), "Infinity is not a JSON number"),  # what json.dumps writes for inf
    (dict(lora_dropout=1.0), "'lora_dropout'"),
    (dict(peft_type="IA3"), "'peft_type' 'IA3' is not LORA"),
    (dict(peft_type=None), "is not LORA"),
    (dict(use_dora="yes"), "'use_dora' must be true or false"),
    (dict(use_rslora=1), "'use_rslora'"),
    (dict(target_modules=5), "'target_modules' must be a string or a list of strings"),
    (dict(target_modules=["q_proj", 3]), "'target_modules'"),
    (dict(base_model_name_or_path=["tiny"]), "'base_model_name_or_path' must be a string"),
    (dict(layer_replication=[[0, 1]]), "'layer_replication' is set"),
    (dict(alpha_pattern={"q_proj": 0}), "'alpha_pattern' must be an object mapping"),
    (dict(rank_pattern=[]), "'rank_pattern' must be an object"),
    (dict(modules_to_save=["lm_head"]), "lacks base_model.model.lm_head.weight"),
    (dict(bias="every"), "'bias' must be one of"),
    (dict(init_lora_weights="olora"), "'init_lora_weights' is 'olora'"),
    (dict(use_dora=False), "DoRA weight but"),
])
def test_bad_config_fields(base_fp32, adapter, edit_config, changes, needle):
    edit_config(adapter, **changes)
    msg = load_error(base_fp32, adapter)
    assert needle in msg and "adapter_config.json" in msg


@pytest.mark.parametrize("text,needle", [
    ("[1, 2]", "must hold a JSON object, not an array"),
    ('"adapter"', "not a string"),
    ("null", "not null"),
    ('{"r": NaN}', "NaN is not a JSON number"),
    ('{"lora_alpha": Infinity}', "Infinity is not a JSON number"),
    ('{"lora_alpha": 1e400}', "'lora_alpha' must be a finite positive number"),  # json reads 1e400 as inf
    ("[" * 100_000 + "]" * 100_000, "invalid JSON"),  # RecursionError inside json
    ('{"r": ' + "9" * 5000 + "}", "invalid JSON"),  # longer than Python converts to int
    ("{not json", "invalid JSON"),
])
def test_bad_config_text(base_fp32, adapter, text, needle):
    (adapter / "adapter_config.json").write_text(text)
    msg = load_error(base_fp32, adapter)
    assert needle in msg and "adapter_config.json" in msg


def test_config_not_utf8_or_huge(base_fp32, adapter):
    (adapter / "adapter_config.json").write_bytes(b'{"r": "\xff\xfe"}')
    assert "not UTF-8" in load_error(base_fp32, adapter)
    (adapter / "adapter_config.json").write_bytes(b" " * (2 << 20) + b"{}")
    assert "too large" in load_error(base_fp32, adapter)


def test_directory_that_is_a_file_or_lacks_parts(base_fp32, adapter, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    assert "not a directory" in load_error(base_fp32, f)
    (adapter / "adapter_config.json").unlink()
    assert "adapter_config.json: not found" in load_error(base_fp32, adapter)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_weights_are_refused(base_fp32, adapter, rewrite_tensors, value):
    rewrite_tensors(adapter, lambda t: t[B0].view(-1).__setitem__(3, value))
    msg = load_error(base_fp32, adapter)
    assert B0 in msg and "NaN/Inf" in msg and "adapter_model.safetensors" in msg


def test_non_float_and_out_of_range_weights(base_fp32, adapter, rewrite_tensors):
    rewrite_tensors(adapter, lambda t: t.__setitem__(A0, t[A0].to(torch.int32)))
    assert "dtype int32" in load_error(base_fp32, adapter)

    def huge(t):  # finite in float64, Inf once copied into the fp32 adapter
        t[A0] = t[A0].double()
        t[A0][0, 0] = 1e300
    rewrite_tensors(adapter, huge)
    assert "beyond float32's range" in load_error(base_fp32, adapter)

    def overflow(t):  # each fits fp32, B @ A does not
        t[A0] = torch.full_like(t[A0], 1e20)
        t[B0] = torch.full_like(t[B0], 1e20)
    rewrite_tensors(adapter, overflow)
    assert "overflows float32" in load_error(base_fp32, adapter)


def test_missing_unexpected_and_misshapen_keys(base_fp32, adapter, rewrite_tensors):
    good = (adapter / "adapter_model.safetensors").read_bytes()
    rewrite_tensors(adapter, lambda t: t.pop(B0))
    assert "lacks " + B0 in load_error(base_fp32, adapter)
    (adapter / "adapter_model.safetensors").write_bytes(good)
    rewrite_tensors(adapter, lambda t: t.__setitem__(B0.replace("lora_B.weight", "lora_B.bias"), torch.zeros(3)))
    assert "lora_B.bias' is not a LoRA/DoRA weight" in load_error(base_fp32, adapter)
    (adapter / "adapter_model.safetensors").write_bytes(good)

    def zero_rank(t):
        for k in list(t):
            if ".lora_A." in k:
                t[k] = torch.zeros(0, 64)
            elif ".lora_B." in k:
                t[k] = torch.zeros(t[k].shape[0], 0)
    rewrite_tensors(adapter, zero_rank)
    assert "rank >= 1" in load_error(base_fp32, adapter)


def test_safetensors_header_bomb_and_truncation(base_fp32, adapter):
    path = adapter / "adapter_model.safetensors"
    good = path.read_bytes()
    path.write_bytes(struct.pack("<Q", 2**62) + good[8:])
    assert "declares a 4611686018427387904-byte header" in load_error(base_fp32, adapter)
    path.write_bytes(good[:5])
    assert "shorter than its 8-byte header length" in load_error(base_fp32, adapter)
    path.write_bytes(good[: len(good) - 10])
    assert "not a readable safetensors file" in load_error(base_fp32, adapter)


def test_peft_style_nulls_and_defaults_still_load(base_fp32, adapter, edit_config):
    """PEFT writes null for unset fields and may leave out r / lora_alpha: those keep loading."""
    edit_config(adapter, lora_dropout=None, target_modules=None, modules_to_save=None, rank_pattern={},
                alpha_pattern={}, base_model_name_or_path=None, bias="none", lora_bias=False, task_type=None)
    model = amplora.load_adapter(copy.deepcopy(base_fp32), adapter, precision="fp32")
    assert len(amplora.lora_layers(model)) == 4


@pytest.mark.parametrize("umask,file_mode,dir_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700)])
def test_saved_adapter_follows_umask(base_fp32, tmp_path, umask, file_mode, dir_mode):
    model = amplora.apply(copy.deepcopy(base_fp32), r=2, precision="fp32")
    old = os.umask(umask)
    try:
        out = amplora.save_adapter(model, tmp_path / "adapter")
    finally:
        os.umask(old)
    assert oct(out.stat().st_mode & 0o777) == oct(dir_mode)
    modes = {f.name: oct(f.stat().st_mode & 0o777) for f in out.iterdir()}
    assert modes == {"adapter_config.json": oct(file_mode), "adapter_model.safetensors": oct(file_mode)}


@pytest.mark.parametrize("name", ["adapter_config.json", "adapter_model.safetensors"])
def test_a_fifo_or_device_in_place_of_a_file_is_refused_unopened(base_fp32, adapter, name):
    (adapter / name).unlink()
    os.mkfifo(adapter / name)  # opening it for reading would block forever
    assert load_error(base_fp32, adapter).endswith(f"{name}: not a regular file" + (
        " (is {} an adapter directory?)".format(adapter) if name.endswith(".json") else ""))
