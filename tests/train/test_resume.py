"""Checkpoints: a run killed with SIGKILL and resumed ends with the same adapter as an uninterrupted run."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

import amplora
from amplora.errors import AmploraError
from amplora.train import checkpoint
from amplora.train.optim import build_optimizer, build_scheduler
from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import read_metrics, run_cli

STEPS = 150
# dropout on, so that the RNG state is part of what must be restored exactly
ARGS = ["train", "--model", "tiny", "--max-steps", str(STEPS), "--batch-size", "4", "--save-every", "5",
        "--dropout", "0.1", "--eval-every", "0", "--eval-limit", "1", "--max-new-tokens", "2", "--log-every", "1",
        "--quiet"]
# Same seed, same CPU, same thread count: the resumed run replays the very same floating-point operations, so we
# expect bit-identical adapters. The stated tolerance leaves room only for float32 rounding (1e-6 absolute).
ATOL = 1e-6


def _wait_for_checkpoint(run_dir: Path, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if checkpoint.checkpoint_dirs(run_dir / "checkpoints"):
            return
        if proc.poll() is not None:
            raise AssertionError(f"training process ended early: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.01)
    raise AssertionError("no checkpoint appeared")


def test_sigkill_then_resume_matches_uninterrupted_run(tmp_path, alpaca_file):
    killed, straight = tmp_path / "killed", tmp_path / "straight"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "amplora", *ARGS, "--data", str(alpaca_file),
                             "--output", str(killed)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for_checkpoint(killed, proc)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert not (killed / "adapter").exists()  # really killed mid-run
    last = checkpoint.checkpoint_dirs(killed / "checkpoints")[-1]
    assert 0 < int(last.name.split("-")[1]) < STEPS

    assert run_cli("train", "--resume", killed, "--quiet") == 0
    assert run_cli(*ARGS, "--data", alpaca_file, "--output", straight) == 0

    a = load_file(killed / "adapter" / "adapter_model.safetensors")
    b = load_file(straight / "adapter" / "adapter_model.safetensors")
    assert a.keys() == b.keys()
    diff = max(float((a[k] - b[k]).abs().max()) for k in a)
    assert diff <= ATOL, f"resumed adapter differs by {diff}"
    steps = [r["step"] for r in read_metrics(killed) if r["kind"] == "train"]
    assert steps == list(range(1, STEPS + 1))  # each step logged once, none lost or doubled
    assert not [p for p in (killed / "checkpoints").iterdir() if p.name.startswith(".")]  # no temp dirs left


def test_resume_from_a_named_checkpoint_and_bad_resume_paths(tmp_path, alpaca_file, capsys):
    out = tmp_path / "run"
    args = [a if a != str(STEPS) else "6" for a in ARGS]
    assert run_cli(*args, "--data", alpaca_file, "--output", out, "--save-every", "3") == 0
    ckpt = out / "checkpoints" / "step-000003"
    assert (ckpt / "adapter" / "adapter_config.json").is_file() and (ckpt / checkpoint.STATE_FILE).is_file()
    first = load_file(out / "adapter" / "adapter_model.safetensors")
    stale = out / "checkpoints" / ".step-000009.x1y2.tmp"  # what a kill in the middle of a save leaves
    stale.mkdir()
    assert run_cli("train", "--resume", ckpt, "--quiet") == 0
    assert not stale.exists()
    again = load_file(out / "adapter" / "adapter_model.safetensors")
    assert all(torch.equal(first[k], again[k]) for k in first)

    assert run_cli("train", "--resume", tmp_path / "nowhere") == 2
    assert "no such directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert run_cli("train", "--resume", tmp_path / "empty") == 2
    assert "no checkpoint there" in capsys.readouterr().err


def test_a_nan_adapter_is_never_saved(tmp_path):
    model = amplora.apply(build_model(build_tokenizer()), r=2, precision="fp32")
    named = amplora.trainable_parameters(model)
    opt = build_optimizer([p for _, p in named], 1e-3, 0.0)
    sched = build_scheduler(opt, 10, 0.1)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    with torch.no_grad():
        named[0][1][0, 0] = float("nan")
    with pytest.raises(AmploraError, match="not finite"):
        checkpoint.save_checkpoint(tmp_path, 1, model, named, opt, sched, scaler, {}, "tiny")
    assert not (tmp_path / "checkpoints").exists() or not any((tmp_path / "checkpoints").iterdir())
    with pytest.raises(AmploraError, match="non-finite"):
        amplora.save_adapter(model, tmp_path / "adapter")
    assert not (tmp_path / "adapter").exists()
