"""docs/exit-codes.md, code by code, each through a real `python -m amplora` process."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import amplora

SRC = Path(amplora.__file__).resolve().parents[1]
PROGRAMS = Path(__file__).parent / "doctor" / "programs"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
       "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
TINY = ["train", "--model", "tiny", "--batch-size", "2", "--eval-limit", "2", "--eval-loss-limit", "2",
        "--samples", "1", "--max-new-tokens", "4", "--log-every", "1"]


def amplora_cmd(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amplora", *map(str, args)], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def data(tmp_path) -> Path:
    rows = [{"instruction": f"{i % 7}+{3 * i % 5}?", "output": str(i % 7 + 3 * i % 5)} for i in range(16)]
    path = tmp_path / "alpaca.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_0_explain_recognized(tmp_path):
    r = amplora_cmd("explain", "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != "
                               "c10::BFloat16", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_2_bad_input_is_one_line(tmp_path, data):
    r = amplora_cmd(*TINY, "--data", data, "--lr", "-1", "--output", tmp_path / "run", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (2, "amplora: error: lr must be greater than 0, got -1 (flags)\n")
    assert not (tmp_path / "run").exists()
    r = amplora_cmd(*TINY, "--max-steps", "x", cwd=tmp_path)  # argparse's own usage error: also 2
    assert r.returncode == 2 and "invalid int value: 'x'" in r.stderr


def test_3_explain_unrecognized(tmp_path):
    r = amplora_cmd("explain", "the cat sat on the mat", cwd=tmp_path)
    assert r.returncode == 3 and "unrecognized" in r.stdout.lower()


def test_4_doctor_run_diagnosed_fault(tmp_path):
    r = amplora_cmd("doctor", "run", PROGRAMS / "fp16_trainable_gradscaler.py", cwd=tmp_path)
    assert r.returncode == 4, r.stderr


def test_1_and_own_codes_under_doctor_run(tmp_path):
    (tmp_path / "boom.py").write_text("raise ValueError('boom')\n")
    r = amplora_cmd("doctor", "run", "boom.py", cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" in r.stderr and "ValueError: boom" in r.stderr
    (tmp_path / "seven.py").write_text("import sys\nsys.exit(7)\n")
    assert amplora_cmd("doctor", "run", "seven.py", cwd=tmp_path).returncode == 7


def test_7_doctor_run_nonfinite_values(tmp_path):
    r = amplora_cmd("doctor", "run", PROGRAMS / "nan_fp16_attention_mask.py", cwd=tmp_path)
    assert r.returncode == 7 and "first appeared in forward" in r.stderr, r.stderr
    r = amplora_cmd("doctor", "run", "--allow-nonfinite", PROGRAMS / "nan_fp16_attention_mask.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_6_out_of_memory_under_doctor_run(tmp_path):
    r = amplora_cmd("doctor", "run", PROGRAMS / "oom_in_forward.py", cwd=tmp_path)
    assert r.returncode == 6 and "out of memory in forward" in r.stderr, r.stderr


def test_6_run_fits_on_no_device(tmp_path):
    r = amplora_cmd("doctor", "--model", "tiny", "--batch-size", "64", "--max-length", "1000000", cwd=tmp_path)
    assert r.returncode == 6, r.stderr
    assert "none fits" in r.stdout or "fits" in r.stdout


def test_5_diverged_training(tmp_path, data):
    out = tmp_path / "run"
    r = amplora_cmd(*TINY, "--data", data, "--max-steps", "2", "--eval-every", "0", "--save-every", "0",
                    "--lr", "1e20", "--warmup-ratio", "0", "--output", out, "--quiet", cwd=tmp_path)
    assert r.returncode == 5, r.stderr
    assert r.stderr.startswith("amplora: diverged at step 2: ") and r.stderr.count("\n") == 1, r.stderr
    assert not (out / "adapter").exists()


def test_130_interrupted_training_leaves_no_partial_files(tmp_path, data):
    from amplora.train.checkpoint import checkpoint_dirs

    out = tmp_path / "run"
    p = subprocess.Popen([sys.executable, "-m", "amplora", *TINY, "--data", str(data), "--max-steps", "100000",
                          "--eval-every", "0", "--save-every", "1", "--output", str(out)], cwd=tmp_path, env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in p.stdout:
            if line.startswith("step 3/"):  # training, checkpoints being written every step
                break
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:
        p.kill()
    assert (p.returncode, err) == (130, "amplora: interrupted\n")
    assert not (out / "adapter").exists() and not (out / "summary.json").exists()
    leftovers = [q for q in out.rglob(".*")]  # temporary files and directories of atomic writes
    assert not leftovers, leftovers
    steps = sorted((out / "checkpoints").iterdir())
    assert steps and steps == checkpoint_dirs(out / "checkpoints")  # each one complete
    assert all((s / "adapter" / "adapter_model.safetensors").is_file() for s in steps)
    for line in (out / "metrics.jsonl").read_text().splitlines():
        json.loads(line)
