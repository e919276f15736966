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


def _short(steps: int, save_every: int) -> list:
    args = [a if a != str(STEPS) else str(steps) for a in ARGS]
    return [*args, "--save-every", str(save_every)]


def _names(run_dir: Path) -> list[str]:
    return [p.name for p in checkpoint.checkpoint_dirs(run_dir / "checkpoints")]


def _spy_on_saves(monkeypatch, run_dir: Path, look) -> list:
    """Record what `look(run_dir)` sees right after each checkpoint the (real) save writes."""
    seen, real = [], checkpoint.save_checkpoint

    def save(*args, **kwargs):
        dest = real(*args, **kwargs)
        seen.append((int(dest.name.split("-")[1]), look(run_dir)))
        return dest

    monkeypatch.setattr(checkpoint, "save_checkpoint", save)
    return seen


def test_rolling_back_keeps_the_checkpoint_resumed_from_and_replays_the_same_run(tmp_path, alpaca_file,
                                                                                 monkeypatch):
    out = tmp_path / "run"
    monkeypatch.setattr(checkpoint, "KEEP", 10)  # a run that kept every checkpoint: step-1 ... step-6
    assert run_cli(*_short(6, 1), "--data", alpaca_file, "--output", out) == 0
    monkeypatch.setattr(checkpoint, "KEEP", 2)
    assert _names(out) == [f"step-00000{i}" for i in range(1, 7)]
    first = load_file(out / "adapter" / "adapter_model.safetensors")

    found, run_dir = checkpoint.find_checkpoint(out / "checkpoints" / "step-000002")
    assert checkpoint.load_checkpoint(found)["step"] == 2 and run_dir == out
    assert _names(out) == [f"step-00000{i}" for i in range(1, 7)]  # finding and loading delete nothing

    seen = _spy_on_saves(monkeypatch, out, _names)
    assert run_cli("train", "--resume", out / "checkpoints" / "step-000002", "--quiet") == 0
    # the first save of the resumed run drops the abandoned future (step-3..6 of the first run, its own step-3
    # replacing that one) and keeps the checkpoint it resumed from; then the KEEP newest of its own lineage
    assert seen == [(3, ["step-000002", "step-000003"]), (4, ["step-000003", "step-000004"]),
                    (5, ["step-000004", "step-000005"]), (6, ["step-000005", "step-000006"])]
    again = load_file(out / "adapter" / "adapter_model.safetensors")
    assert all(torch.equal(first[k], again[k]) for k in first)  # same data, same RNG: the very same run
    steps = [r["step"] for r in read_metrics(out) if r["kind"] == "train"]
    assert steps == list(range(1, 7))


def test_a_stale_newer_checkpoint_is_not_taken_for_the_resumed_runs_latest(tmp_path, alpaca_file, monkeypatch):
    out = tmp_path / "run"
    assert run_cli(*_short(6, 2), "--data", alpaca_file, "--output", out) == 0
    assert _names(out) == ["step-000004", "step-000006"]
    first = load_file(out / "adapter" / "adapter_model.safetensors")

    seen = _spy_on_saves(monkeypatch, out, lambda d: (checkpoint.find_checkpoint(d)[0].name, _names(d)))
    assert run_cli("train", "--resume", out / "checkpoints" / "step-000004", "--save-every", "1", "--quiet") == 0
    # after its step-5, the rolled-back run's latest is its own step-5, not the first run's step-6
    assert seen[0] == (5, ("step-000005", ["step-000004", "step-000005"]))
    assert seen[1] == (6, ("step-000006", ["step-000005", "step-000006"]))
    again = load_file(out / "adapter" / "adapter_model.safetensors")
    assert all(torch.equal(first[k], again[k]) for k in first)


def test_resume_of_a_run_killed_before_its_first_checkpoint_starts_it_again(tmp_path, alpaca_file, capsys):
    killed = tmp_path / "killed"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    args = [a if a != str(STEPS) else "100000" for a in ARGS]  # long enough never to finish
    proc = subprocess.Popen([sys.executable, "-m", "amplora", *args, "--save-every", "0", "--r", "4",
                             "--data", str(alpaca_file), "--output", str(killed)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not ((killed / "metrics.jsonl").is_file() and '"train"' in (killed / "metrics.jsonl").read_text()):
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the run logged no step"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert not (killed / "adapter").exists() and not _names(killed)
    assert (killed / "config.yaml").is_file()

    assert run_cli("train", "--resume", killed, "--max-steps", "4") == 0
    err = capsys.readouterr().err
    assert f"no checkpoint in {killed}: starting the run again from step 0" in err
    assert "r: 4" in (killed / "config.yaml").read_text().splitlines()  # the killed run's own settings
    records = read_metrics(killed)
    assert [r["kind"] for r in records].count("before") == 1
    assert [r["step"] for r in records if r["kind"] == "train"] == [1, 2, 3, 4]
    assert (killed / "adapter" / "adapter_model.safetensors").is_file()

    # finished, and still without a checkpoint: starting again would replace the adapter, so it is refused
    assert run_cli("train", "--resume", killed) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "finished" in err and "--overwrite" in err
