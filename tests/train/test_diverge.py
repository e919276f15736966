"""A diverged run is not a success: exit 5, one line naming the step, no adapter that gives NaN (docs/train.md)."""
from __future__ import annotations

import json
import re

import pytest
import torch
from safetensors.torch import load_file

from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import FAST, read_metrics, run_cli

# lr 1e20: step 1 (taken at the initial weights) is finite, its update leaves finite weights around 1e20 whose
# forward is NaN, so every later step is non-finite
ABSURD = ["--lr", "1e20", "--warmup-ratio", "0"]


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def _no_adapter(out):
    assert not (out / "adapter").exists()
    assert not (out / "adapter-last-good").exists()


def _recorded(out, step: int) -> dict:
    diverged = [r for r in read_metrics(out) if r["kind"] == "diverged"]
    assert len(diverged) == 1 and diverged[0]["step"] == step
    summary = json.loads((out / "summary.json").read_text())
    assert summary["diverged"]["step"] == step and summary["status"].startswith(f"diverged at step {step}: ")
    return summary["diverged"]


def test_nonfinite_steps_in_a_row_stop_the_run(tmp_path, alpaca_file, capsys):
    out = tmp_path / "run"
    # fp32 named: `auto` is bf16-true on a CPU with AVX512-BF16, and the trace below is of an fp32 overflow
    code = run_cli("train", *FAST, "--max-steps", "15", "--eval-every", "0", "--save-every", "0", *ABSURD,
                   "--precision", "fp32", "--data", alpaca_file, "--output", out, "--quiet")
    assert code == 5
    line = _one_line(capsys)
    # steps 2..11 are the ten non-finite steps in a row
    assert line.startswith("amplora: diverged at step 11: 10 steps in a row had a non-finite loss"), line
    assert "no adapter was written" in line
    _no_adapter(out)
    assert _recorded(out, 11)["adapter"] is None
    # the doctor traced step 2, the first non-finite one: 1e20-sized weights overflow fp32 in a forward matmul
    assert "first non-finite value (inf" in line and "fp32) in forward" in line, line
    assert "overflowed fp32" in line and "lower lr" in line, line
    origin = [r for r in read_metrics(out) if r["kind"] == "nonfinite"]
    assert len(origin) == 1 and origin[0]["step"] == 2 and origin[0]["phase"] == "forward", origin
    assert origin[0]["op"].startswith("aten.") and origin[0]["limit"] > 3e38


def test_nan_held_out_loss_at_a_periodic_eval_stops_the_run(tmp_path, alpaca_file, capsys):
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--max-steps", "6", "--eval-every", "2", "--save-every", "0", *ABSURD,
                   "--data", alpaca_file, "--output", out, "--quiet") == 5
    assert _one_line(capsys).startswith("amplora: diverged at step 2: held-out loss is NaN")
    _no_adapter(out)
    _recorded(out, 2)


def test_finite_adapter_whose_forward_is_nan_is_not_written(tmp_path, alpaca_file, capsys):
    # one non-finite step is tolerated; the final adapter's weights are finite (~1e20) but its forward is NaN
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--max-steps", "2", "--eval-every", "0", "--save-every", "0", *ABSURD,
                   "--data", alpaca_file, "--output", out, "--quiet") == 5
    line = _one_line(capsys)
    assert line.startswith("amplora: diverged at step 2: held-out loss is NaN (the adapter's forward is not finite)")
    _no_adapter(out)
    _recorded(out, 2)


def test_diverged_run_keeps_the_last_good_checkpoint_adapter(tmp_path, alpaca_file, capsys):
    # warmup over 10 steps to a peak lr of 1e18: the first steps' updates are still fine, later ones blow up
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--max-steps", "20", "--warmup-ratio", "0.5", "--lr", "1e18", "--eval-every", "0",
                   "--save-every", "1", "--data", alpaca_file, "--output", out, "--quiet") == 5
    line = _one_line(capsys)
    m = re.fullmatch(r"amplora: diverged at step (\d+): .*; kept the adapter of step (\d+) as (.+)", line)
    assert m, line
    step, good = int(m[1]), int(m[2])
    assert 1 <= good < step and m[3] == str(out / "adapter-last-good")
    assert not (out / "adapter").exists()
    assert _recorded(out, step)["last_good_step"] == good
    kept = out / "adapter-last-good"
    weights = load_file(kept / "adapter_model.safetensors")
    assert weights and all(torch.isfinite(t).all() for t in weights.values())
    source = out / "checkpoints" / f"step-{good:06d}" / "adapter" / "adapter_model.safetensors"
    assert (kept / "adapter_model.safetensors").read_bytes() == source.read_bytes()
    peft = pytest.importorskip("peft")
    model = peft.PeftModel.from_pretrained(build_model(build_tokenizer()), str(kept)).eval()
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([list(b"3+4?")])).logits
    assert torch.isfinite(logits).all()  # the kept adapter's forward is finite


def test_fp16_loss_scale_backing_off_is_not_divergence(tmp_path, alpaca_file):
    # 2**40: the scaler halves the scale for ~23 overflowing steps in a row (loss finite) before updates start
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--max-steps", "26", "--eval-every", "0", "--data", alpaca_file,
                   "--precision", "fp16-mixed", "--init-loss-scale", str(2.0 ** 40), "--output", out, "--quiet") == 0
    train = [r for r in read_metrics(out) if r["kind"] == "train"]
    assert train[-1]["skipped_steps"] > 10 and (out / "adapter").is_dir()


@pytest.mark.parametrize("lr", ["1e38", "1e300"])
def test_lr_that_overflows_adamw_is_bad_input(tmp_path, alpaca_file, capsys, lr):
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--lr", lr, "--data", alpaca_file, "--output", out) == 2
    line = _one_line(capsys)
    assert line.startswith("amplora: error: lr must be at most 3.4e+37"), line
    assert not out.exists()
