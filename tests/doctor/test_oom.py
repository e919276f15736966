"""Out of memory, explained: phase, module, peak so far, the estimate and the levers; `doctor run` exits 6."""
from __future__ import annotations

import json

import torch

from amplora.doctor.oom import is_oom

from .conftest import amplora_cli, program_path, run_program


def _check(d: dict) -> None:
    assert d["kind"] == "memory" and d["phase"] == "forward" and d["module"] == "model.layers.1.mlp.act_fn"
    assert "asked for 1048576.00 GiB more" in d["culprit"] and "peak so far" in d["culprit"]
    assert "The estimate for batch 2 x 8 tokens" in d["fix"]
    assert "--activation-checkpointing" in d["fix"] and "--batch-size 1 --grad-accum 2" in d["fix"]
    assert d["error"].startswith("RuntimeError:") and "can't allocate memory" in d["error"]


def test_watch_explains_a_cpu_oom():
    fault, _ = run_program("oom_in_forward")
    assert fault is not None and isinstance(fault.original, RuntimeError)
    _check(fault.as_dict())
    assert str(fault).startswith("out of memory in forward")


def test_doctor_run_exits_6(tmp_path):
    out = tmp_path / "oom.json"
    proc = amplora_cli("doctor", "run", "--json", str(out), str(program_path("oom_in_forward")),
                       env_extra={"OMP_NUM_THREADS": "1"})
    assert proc.returncode == 6, proc.stderr[-3000:]
    assert "out of memory in forward" in proc.stderr and "Traceback" not in proc.stderr
    _check(json.loads(out.read_text())["fault"])


def test_cuda_wording_is_recognized():
    assert is_oom(torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 MiB"))
    assert is_oom(RuntimeError("CUDA out of memory. Tried to allocate 144.00 MiB (GPU 0; 31.75 GiB total)"))
    assert not is_oom(RuntimeError("expected mat1 and mat2 to have the same dtype"))
