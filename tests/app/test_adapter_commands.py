"""`generate` / `merge` with a damaged or hostile adapter directory: one-line error, exit 2, nothing written;
and `merge --out` writes files that follow the user's umask."""
from __future__ import annotations

import os

import pytest
import torch

import amplora
from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import run_cli

B0 = "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight"


@pytest.fixture(scope="module")
def saved_adapter(tmp_path_factory):
    torch.manual_seed(0)
    model = amplora.apply(build_model(build_tokenizer()), r=2, precision="fp32", targets=["q_proj", "v_proj"])
    return amplora.save_adapter(model, tmp_path_factory.mktemp("a") / "adapter", base_model_name_or_path="tiny")


def error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("amplora: error: "), err
    return err


@pytest.mark.parametrize("changes,needle", [
    (dict(r=0), "'r' must be a positive integer"),
    (dict(r="abc"), "'r' must be a positive integer"),
    (dict(base_model_name_or_path=7), "'base_model_name_or_path' must be a string"),
    (dict(lora_alpha=-1), "'lora_alpha'"),
])
def test_generate_refuses_a_bad_config(adapter, edit_config, capsys, changes, needle):
    edit_config(adapter, **changes)
    assert run_cli("generate", "--adapter", adapter, "--max-new-tokens", "2", "hi") == 2
    err = error_line(capsys)
    assert needle in err and "adapter_config.json" in err


def test_generate_refuses_a_list_config_and_a_file(adapter, tmp_path, capsys):
    (adapter / "adapter_config.json").write_text("[]")
    assert run_cli("generate", "--adapter", adapter, "hi") == 2
    assert "must hold a JSON object" in error_line(capsys)
    assert run_cli("generate", "--adapter", adapter / "adapter_config.json", "hi") == 2
    assert "not a directory" in error_line(capsys)


def test_nan_weights_neither_generate_nor_merge(adapter, rewrite_tensors, tmp_path, capsys):
    rewrite_tensors(adapter, lambda t: t[B0].view(-1).__setitem__(0, float("nan")))
    assert run_cli("generate", "--adapter", adapter, "--max-new-tokens", "2", "hi") == 2
    assert B0 in error_line(capsys)
    assert run_cli("merge", "--adapter", adapter, "--out", tmp_path / "merged") == 2
    assert "NaN/Inf" in error_line(capsys)
    assert not (tmp_path / "merged").exists()


@pytest.mark.parametrize("umask,file_mode,dir_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700)])
def test_merge_output_follows_umask(saved_adapter, tmp_path, umask, file_mode, dir_mode):
    old = os.umask(umask)
    try:
        assert run_cli("merge", "--adapter", saved_adapter, "--out", tmp_path / "merged") == 0
    finally:
        os.umask(old)
    out = tmp_path / "merged"
    modes = {str(p.relative_to(out)): p.stat().st_mode & 0o777 for p in [out, *out.rglob("*")]}
    assert "model.safetensors" in modes
    assert {k: oct(v) for k, v in modes.items()} == {
        k: oct(dir_mode if (out / k).is_dir() else file_mode) for k in modes}
