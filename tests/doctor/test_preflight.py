"""`amplora doctor` preflight: JSON shape, probed kernel table, the cache, warnings (incl. CUDA rules on data)."""
from __future__ import annotations

import json
import os
import time

import pytest
import torch

from amplora.cli import main
from amplora.doctor import preflight, probe
from amplora.doctor.preflight import rank, warnings_for
from amplora.precision import auto_preset

from .conftest import amplora_cli

OPS = {"matmul", "addmm", "sdpa", "layer_norm", "rms_norm", "svd", "qr"}


def test_json_has_everything_the_issue_asks_for(capsys):
    assert main(["doctor", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    v = info["versions"]
    assert v["torch"] == torch.__version__ and v["transformers"] and v["bitsandbytes"] and "cuda" in v
    cpu = next(d for d in info["devices"] if d["type"] == "cpu")
    assert {"name", "memory_gb", "native_bf16", "bf16_emulated", "kernels"} <= set(cpu)
    assert set(cpu["kernels"]) == {"fp32", "fp16", "bf16"}
    for dtype, row in cpu["kernels"].items():
        assert set(row) == OPS
        assert all(s == "ok" or s == "missing" or s.startswith("error:") for s in row.values())
    assert all(s == "ok" for s in cpu["kernels"]["fp32"].values())
    assert isinstance(info["cpu_features"], list)
    assert info["ranking"][0]["device"] == info["pick"]["device"] and info["pick"]["why"]
    assert (info["auto"]["preset"], info["auto"]["why"]) == auto_preset(info["pick"]["device"])
    assert isinstance(info["warnings"], list)


def test_kernel_probe_really_runs_ops():
    # torch 2.13 has no Half/BF16 CPU kernel for SVD/QR (PRECISION.md): the probe must find that, not assume it
    assert probe.run_cell("svd", "fp16", "cpu") == "missing"
    assert probe.run_cell("qr", "bf16", "cpu") == "missing"
    assert probe.run_cell("matmul", "bf16", "cpu") == "ok"
    assert probe.run_cell("sdpa", "fp32", "cpu") == "ok"


def test_cache_is_written_atomically_and_reused(tmp_path):
    first = preflight()
    cpu = first["devices"][-1]
    assert cpu["kernels_cached"] is False
    path = cpu["cache_file"]
    assert os.path.dirname(path).startswith(os.environ["AMPLORA_CACHE"])
    data = json.loads(open(path).read())
    assert data["table"] == cpu["kernels"] and torch.__version__ in data["key"]
    assert not [f for f in os.listdir(os.path.dirname(path)) if f.startswith(".tmp-")]
    second = preflight()
    assert second["devices"][-1]["kernels_cached"] is True
    assert second["devices"][-1]["kernels"] == cpu["kernels"]
    assert preflight(use_cache=False)["devices"][-1]["kernels_cached"] is False  # --refresh


def test_corrupt_or_stale_cache_is_reprobed(tmp_path):
    path = preflight()["devices"][-1]["cache_file"]
    with open(path, "w") as f:
        f.write("{not json")
    again = preflight()["devices"][-1]
    assert again["kernels_cached"] is False and json.loads(open(path).read())["table"]
    data = json.loads(open(path).read())
    data["key"] = "probe-v0|torch 1.0|elsewhere"
    with open(path, "w") as f:
        json.dump(data, f)
    assert preflight()["devices"][-1]["kernels_cached"] is False


@pytest.mark.parametrize("text", ["[]", "null", "[" * 100_000 + "]" * 100_000, '{"key": 1, "table": []}',
                                  "SAME_KEY_BAD_TABLE", "x" * (2 << 20)])
def test_a_cache_of_another_shape_is_reprobed_not_trusted(text):
    path = preflight()["devices"][-1]["cache_file"]
    if text == "SAME_KEY_BAD_TABLE":
        data = json.loads(open(path).read())
        data["table"]["fp32"] = {"matmul": ["ok"]}
        text = json.dumps(data)
    with open(path, "w") as f:
        f.write(text)
    again = preflight()["devices"][-1]
    assert again["kernels_cached"] is False and again["kernels"]["fp32"]["matmul"] == "ok"


def test_unwritable_cache_dir_still_works(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("AMPLORA_CACHE", str(blocker))
    info = preflight()
    assert info["devices"][-1]["kernels"]["fp32"]["matmul"] == "ok"


def test_human_output(capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for text in ("versions:", "kernels on cpu", "svd", "precision=auto ->", "pick:", "ranked devices"):
        assert text in out


def test_runs_in_seconds_as_a_command():
    t0 = time.perf_counter()
    proc = amplora_cli("doctor", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["elapsed_s"] < 10
    assert time.perf_counter() - t0 < 60


def _gpu(i, name, cc, mem=24.0, sms=80):
    major, minor = cc.split(".")
    return {"id": f"cuda:{i}", "type": "cuda", "name": name, "memory_gb": mem, "capability": cc, "sm_count": sms,
            "native_bf16": int(major) >= 8, "bf16_emulated": int(major) < 8, "native_fp16": True,
            "kernels": {"fp32": {"matmul": "ok"}, "bf16": {"matmul": "ok"}}}


def _cpu(native=True):
    return {"id": "cpu", "type": "cpu", "name": "cpu", "native_bf16": native, "native_fp16": native,
            "kernels": {"fp32": {"matmul": "ok"}, "fp16": {"svd": "missing"}}}


def test_gpu_warnings_on_data(monkeypatch):
    """The CUDA rules, fed device records as cuda_devices() builds them (no GPU needed)."""
    monkeypatch.delenv("CUDA_DEVICE_ORDER", raising=False)
    devices = [_gpu(0, "Tesla T4", "7.5", 16, 40), _gpu(1, "NVIDIA A100", "8.0", 80, 108), _cpu()]
    ranking = rank(devices)
    assert [r["device"] for r in ranking] == ["cuda:1", "cuda:0", "cpu"]
    text = "\n".join(warnings_for(devices, ranking, "cuda:0"))
    assert "mixed GPU models" in text and "mixes precisions" in text
    assert "S004" not in text  # users read the thing itself, not an internal failure tag
    assert "CUDA_DEVICE_ORDER is not PCI_BUS_ID" in text
    assert "picks cuda:0, but cuda:1" in text
    assert "bf16 on cuda:0 (Tesla T4, cc 7.5) is emulated" in text
    assert "cpu: no kernel for fp16 svd" in text
    monkeypatch.setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    assert not any("CUDA_DEVICE_ORDER" in w for w in warnings_for(devices, ranking, "cuda:0"))


def test_cpu_warnings_on_data():
    text = "\n".join(warnings_for([_cpu(native=False)], rank([_cpu(native=False)]), "cpu"))
    assert "bf16 on this CPU is emulated" in text and "fp16 on CPU" in text
    quiet = warnings_for([dict(_cpu(), kernels={"fp32": {"matmul": "ok"}})], rank([_cpu()]), "cpu")
    assert quiet == []
