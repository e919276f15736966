"""`amplora doctor` preflight: what this machine can run, what amplora would pick, and what looks risky.

Returns a plain dict (the `--json` output); render.py draws it for humans.
"""
from __future__ import annotations

import importlib.metadata
import os
import platform
import time

import torch

from amplora.doctor import probe
from amplora.precision import auto_preset, cpu_features, cpu_has_native_bf16, resolve, resolve_device

PACKAGES = ("torch", "transformers", "bitsandbytes", "peft", "accelerate", "safetensors")


def versions() -> dict:
    """Package versions from metadata (importing bitsandbytes would be slow and chatty)."""
    out = {"python": platform.python_version(), "amplora": _version("amplora")}
    for pkg in PACKAGES:
        out[pkg] = _version(pkg)
    out["torch"] = torch.__version__
    out["cuda"] = torch.version.cuda
    out["cudnn"] = torch.backends.cudnn.version() if torch.cuda.is_available() else None
    return out


def _version(pkg: str) -> str | None:
    try:
        return importlib.metadata.version(pkg)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def _memory_gb() -> float | None:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        return None


def cpu_device(use_cache: bool) -> dict:
    feats = cpu_features()
    name = _cpu_name()
    table, cached, path = probe.cached_table("cpu", f"cpu:{name}:{','.join(sorted(feats))}", use_cache)
    return {"id": "cpu", "type": "cpu", "name": name, "cores": os.cpu_count(), "threads": torch.get_num_threads(),
            "memory_gb": _memory_gb(), "native_bf16": cpu_has_native_bf16(),
            "native_fp16": bool({"avx512_fp16", "amx_fp16"} & feats), "bf16_emulated": not cpu_has_native_bf16(),
            "kernels": table, "kernels_cached": cached, "cache_file": path}


def cuda_devices(use_cache: bool) -> list[dict]:
    if not torch.cuda.is_available():
        return []
    out = []
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        native = props.major >= 8
        try:
            with torch.cuda.device(i):
                any_bf16 = torch.cuda.is_bf16_supported(including_emulation=True)
        except TypeError:  # older torch without the keyword
            any_bf16 = torch.cuda.is_bf16_supported()
        table, cached, path = probe.cached_table(f"cuda:{i}", f"cuda:{props.name}:cc{props.major}.{props.minor}",
                                                 use_cache)
        out.append({"id": f"cuda:{i}", "type": "cuda", "name": props.name,
                    "memory_gb": round(props.total_memory / 2**30, 1),
                    "capability": f"{props.major}.{props.minor}", "sm_count": props.multi_processor_count,
                    "pci_bus_id": getattr(props, "pci_bus_id", None),
                    "native_bf16": native, "bf16_emulated": bool(any_bf16 and not native),
                    "native_fp16": props.major >= 6 or (props.major, props.minor) >= (5, 3),
                    "kernels": table, "kernels_cached": cached, "cache_file": path})
    return out


def rank(devices: list[dict]) -> list[dict]:
    """Strongest first: GPUs by native bf16, compute capability, memory, SM count; the CPU last."""
    def score(d):
        if d["type"] != "cuda":
            return (0, 0.0, 0.0, 0)
        major, minor = (int(x) for x in d["capability"].split("."))
        return (1, int(d["native_bf16"]), major + minor / 10, d["memory_gb"], d["sm_count"])

    ranked = sorted(devices, key=score, reverse=True)
    out = []
    for d in ranked:
        if d["type"] == "cuda":
            why = (f"cc {d['capability']}, {'native' if d['native_bf16'] else 'no native'} bf16, "
                   f"{d['memory_gb']} GiB, {d['sm_count']} SMs")
        else:
            why = "CPU: " + ("native bf16 (AVX512-BF16/AMX)" if d["native_bf16"] else "no native bf16")
        out.append({"device": d["id"], "name": d["name"], "why": why})
    return out


def kernel_gaps(dev: dict) -> list[str]:
    return [f"{dtype} {op}" for dtype, ops in dev["kernels"].items() for op, status in ops.items() if status != "ok"]


def warnings_for(devices: list[dict], ranking: list[dict], pick: str) -> list[str]:
    warns = []
    gpus = [d for d in devices if d["type"] == "cuda"]
    if len({g["name"] for g in gpus}) > 1:
        warns.append("mixed GPU models (" + ", ".join(f"{g['id']} {g['name']}" for g in gpus) + "): a batch or "
                     "layers landing on the weaker one mixes precisions; pin one with CUDA_VISIBLE_DEVICES")
    if len(gpus) > 1 and os.environ.get("CUDA_DEVICE_ORDER") != "PCI_BUS_ID":
        warns.append("CUDA_DEVICE_ORDER is not PCI_BUS_ID: CUDA numbers GPUs fastest-first, nvidia-smi by PCI bus, "
                     "so cuda:N may not be the GPU you think; export CUDA_DEVICE_ORDER=PCI_BUS_ID")
    if gpus and ranking and ranking[0]["device"] != pick:
        warns.append(f"amplora's device=auto picks {pick}, but {ranking[0]['device']} ({ranking[0]['name']}) is "
                     f"stronger: pass --device {ranking[0]['device']} or set CUDA_VISIBLE_DEVICES")
    for g in gpus:
        if g["bf16_emulated"]:
            warns.append(f"bf16 on {g['id']} ({g['name']}, cc {g['capability']}) is emulated, not native (needs cc "
                         f">= 8.0): slow; use fp16-mixed (what auto picks there)")
    cpu = next((d for d in devices if d["type"] == "cpu"), None)
    if cpu is not None:
        if not cpu["native_bf16"]:
            warns.append("bf16 on this CPU is emulated (no AVX512-BF16/AMX): bf16 presets run slower than their "
                         "speed on capable CPUs; auto picks fp32 here")
        if not cpu["native_fp16"]:
            warns.append("fp16 on CPU: no native fp16 compute (no AVX512-FP16/AMX-FP16) and fp16 needs loss "
                         "scaling; prefer bf16 or fp32 on CPU")
    for d in devices:
        gaps = [g for g in kernel_gaps(d) if not g.startswith("fp32")]
        fp32_gaps = [g for g in kernel_gaps(d) if g.startswith("fp32")]
        if fp32_gaps:
            warns.append(f"{d['id']}: fp32 kernels failed the probe: {', '.join(fp32_gaps)}")
        if gaps:
            warns.append(f"{d['id']}: no kernel for {', '.join(gaps)}; run these ops in fp32 "
                         f"(amplora's PiSSA init and DoRA norm already do)")
    return warns


def collect(use_cache: bool = True) -> dict:
    t0 = time.perf_counter()
    devices = cuda_devices(use_cache) + [cpu_device(use_cache)]
    ranking = rank(devices)
    pick = str(resolve_device("auto"))
    pick = "cuda:0" if pick == "cuda" else pick
    if pick.startswith("cuda"):
        pick_why = "device=auto takes the first visible CUDA device (cuda:0); choose another with --device cuda:N"
    else:
        pick_why = "no CUDA device is visible, so device=auto runs on the CPU"
    preset, why = auto_preset(pick)
    return {
        "versions": versions(),
        "devices": devices,
        "cpu_features": sorted(cpu_features()),
        "ranking": ranking,
        "pick": {"device": pick, "why": pick_why},
        "auto": {"preset": preset, "why": why, "policy": resolve(preset).describe()},
        "warnings": warnings_for(devices, ranking, pick),
        "cache_dir": str(probe.cache_dir()),
        "elapsed_s": round(time.perf_counter() - t0, 3),
    }
