"""Kernel probes: run a tiny op per (device, dtype, op) and cache what happened.

Version tables go stale (PRECISION.md): the only reliable answer to "does this op run in bf16 on this device" is
to run it. Answers are cached per torch version + device name in the user's cache dir, written atomically.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F

PROBE_VERSION = 1  # bump when the op list changes, so old caches are ignored
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def _mat(dtype, device, n=8):
    g = torch.Generator(device="cpu").manual_seed(0)
    return torch.randn(n, n, generator=g).to(device=device, dtype=dtype) + torch.eye(n, dtype=dtype, device=device)


def _sdpa(dtype, device):
    q = torch.randn(1, 2, 8, 16).to(device=device, dtype=dtype)
    return F.scaled_dot_product_attention(q, q, q, is_causal=True)


def _rms_norm(dtype, device):
    x = torch.randn(4, 16).to(device=device, dtype=dtype)
    w = torch.ones(16, device=device, dtype=dtype)
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, (16,), w)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


OPS = {
    "matmul": lambda d, dev: _mat(d, dev) @ _mat(d, dev),
    "addmm": lambda d, dev: torch.addmm(_mat(d, dev), _mat(d, dev), _mat(d, dev)),
    "sdpa": _sdpa,
    "layer_norm": lambda d, dev: F.layer_norm(torch.randn(4, 16).to(dev, d), (16,), torch.ones(16, device=dev, dtype=d),
                                              torch.zeros(16, device=dev, dtype=d)),
    "rms_norm": _rms_norm,
    "svd": lambda d, dev: torch.linalg.svd(_mat(d, dev)),
    "qr": lambda d, dev: torch.linalg.qr(_mat(d, dev)),
}


def run_cell(op: str, dtype: str, device: str) -> str:
    """'ok', 'missing' (no kernel for this dtype), or 'error: <first line>'."""
    try:
        out = OPS[op](DTYPES[dtype], torch.device(device))
        if device.startswith("cuda"):
            torch.cuda.synchronize(device)
        first = out[0] if isinstance(out, (tuple, list)) else out
        if not torch.isfinite(first.float()).all():
            return "error: non-finite result"
        return "ok"
    except NotImplementedError:
        return "missing"
    except Exception as e:  # a dtype the device cannot run at all shows up here
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        low = msg.lower()
        if "not implemented" in low or "not supported" in low or "low precision dtypes" in low:
            return "missing"
        return f"error: {msg[:120]}"


def probe_table(device: str) -> dict[str, dict[str, str]]:
    return {dtype: {op: run_cell(op, dtype, device) for op in OPS} for dtype in DTYPES}


def cache_dir() -> Path:
    """$AMPLORA_CACHE/doctor, else $XDG_CACHE_HOME/amplora/doctor, else ~/.cache/amplora/doctor."""
    if os.environ.get("AMPLORA_CACHE"):
        base = Path(os.environ["AMPLORA_CACHE"]).expanduser()
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "amplora"
    return base / "doctor"


def cache_key(device_name: str) -> str:
    return f"probe-v{PROBE_VERSION}|torch {torch.__version__}|{device_name}"


def cache_path(device_name: str) -> Path:
    digest = hashlib.sha1(cache_key(device_name).encode()).hexdigest()[:16]
    return cache_dir() / f"kernels-{digest}.json"


def _write_atomic(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, path)  # readers see the old file or the new one, never half of one
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


CACHE_LIMIT = 1 << 20  # bytes; the table is a few KB


def _read_cache(path: Path, key: str) -> dict | None:
    """The cached table, or None for anything that is not exactly one (another tool's file, damage, a bomb)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(CACHE_LIMIT + 1)
        if len(raw) > CACHE_LIMIT:
            return None
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("table"), dict):
        return None
    table = data["table"]
    ok = set(table) == set(DTYPES) and all(
        isinstance(row, dict) and set(row) == set(OPS) and all(isinstance(v, str) for v in row.values())
        for row in table.values())
    return table if ok else None


def cached_table(device: str, device_name: str, use_cache: bool = True) -> tuple[dict, bool, str]:
    """(table, came_from_cache, cache file). A cache that cannot be read or written is simply not used."""
    path = cache_path(device_name)
    key = cache_key(device_name)
    if use_cache:
        cached = _read_cache(path, key)
        if cached is not None:
            return cached, True, str(path)
    table = probe_table(device)
    try:
        _write_atomic(path, {"key": key, "device": device, "table": table})
    except OSError:
        pass
    return table, False, str(path)
