"""The precision policy: one object that decides every dtype in an amplora model.

A policy names five things (see the table in README.md):

    storage   dtype the frozen base weights are kept in (NF4 bases keep their non-quantized parts here)
    compute   dtype matmuls run in (the autocast dtype amplora enforces at the model boundary)
    master    dtype of trainable parameters (adapters): fp32 in every preset
    logits    dtype of logits and of the loss
    loss_scaling  dynamic loss scaling (needed for fp16 compute, not for bf16)

Presets are strings a user can read: ``fp32``, ``bf16-true``, ``bf16-mixed``, ``fp16-mixed`` and ``auto``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import torch

from amplora.errors import AmploraError

F32, BF16, F16 = torch.float32, torch.bfloat16, torch.float16

DTYPE_NAMES = {F32: "fp32", BF16: "bf16", F16: "fp16"}
DTYPE_ALIASES = {
    "fp32": F32, "float32": F32, "float": F32, "32": F32,
    "bf16": BF16, "bfloat16": BF16,
    "fp16": F16, "float16": F16, "half": F16, "16": F16,
}


class PrecisionError(AmploraError, ValueError):
    """A precision name or dtype that amplora does not know (one-line message)."""


@dataclass(frozen=True)
class Precision:
    name: str
    storage: torch.dtype
    compute: torch.dtype
    logits: torch.dtype = F32
    loss_scaling: bool = False
    master: torch.dtype = F32
    reason: str = field(default="", compare=False)

    @property
    def autocast(self) -> bool:
        """True when matmuls run in a lower dtype than fp32 (amplora then owns an autocast region)."""
        return self.compute != F32

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "storage": dtype_name(self.storage),
            "compute": dtype_name(self.compute),
            "master": dtype_name(self.master),
            "logits": dtype_name(self.logits),
            "loss_scaling": self.loss_scaling,
            "reason": self.reason,
        }

    def describe(self) -> str:
        scaling = "dynamic loss scaling" if self.loss_scaling else "no loss scaling"
        return (f"{self.name}: base stored {dtype_name(self.storage)}, compute {dtype_name(self.compute)}, "
                f"adapters {dtype_name(self.master)}, logits/loss {dtype_name(self.logits)}, {scaling}")

    def grad_scaler(self, device: torch.device | str = "cpu") -> torch.amp.GradScaler:
        """A GradScaler that is enabled exactly when the policy asks for loss scaling."""
        device_type = torch.device(device).type
        return torch.amp.GradScaler(device_type, enabled=self.loss_scaling)


PRESETS: dict[str, Precision] = {
    "fp32": Precision("fp32", storage=F32, compute=F32),
    "bf16-true": Precision("bf16-true", storage=BF16, compute=BF16),
    "bf16-mixed": Precision("bf16-mixed", storage=F32, compute=BF16),
    "fp16-mixed": Precision("fp16-mixed", storage=F32, compute=F16, loss_scaling=True),
}
PRESET_NAMES = (*PRESETS, "auto")

PRESET_DOCS = {
    "fp32": "everything fp32; the reference, and what `auto` picks on CPUs without native bf16",
    "bf16-true": "base stored and computed in bf16, adapters fp32; half the memory of fp32",
    "bf16-mixed": "base stored fp32, matmuls in bf16 (autocast), adapters fp32",
    "fp16-mixed": "base stored fp32, matmuls in fp16, adapters fp32, dynamic loss scaling",
    "auto": "bf16-true on a GPU with native bf16 (cc >= 8.0) or a CPU with AVX512-BF16/AMX; "
            "fp16-mixed on older GPUs; fp32 otherwise",
}


def dtype_name(dtype: torch.dtype) -> str:
    return DTYPE_NAMES.get(dtype, str(dtype).replace("torch.", ""))


def parse_dtype(value: str | torch.dtype) -> torch.dtype:
    """'bf16' / 'bfloat16' / torch.bfloat16 -> torch.bfloat16; anything else is a one-line error."""
    if isinstance(value, torch.dtype):
        if value in DTYPE_NAMES:
            return value
        raise PrecisionError(f"unsupported dtype {value}; use one of fp32, bf16, fp16")
    key = str(value).strip().lower().replace("torch.", "")
    if key not in DTYPE_ALIASES:
        raise PrecisionError(f"unknown dtype {value!r}; use one of fp32, bf16, fp16")
    return DTYPE_ALIASES[key]


@functools.lru_cache(maxsize=None)
def cpu_features() -> frozenset[str]:
    """CPU flags that matter for low precision (Linux /proc/cpuinfo; empty elsewhere)."""
    wanted = {"avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile", "amx_fp16"}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(wanted & set(line.split(":", 1)[1].split()))
    except OSError:
        pass
    return frozenset()


def cpu_has_native_bf16() -> bool:
    return bool({"avx512_bf16", "amx_bf16"} & cpu_features())


def resolve_device(device: str | torch.device | None = "auto") -> torch.device:
    """'auto' -> the first CUDA device when there is one, else CPU. Explicit names are checked."""
    if device is None or str(device) == "auto":
        return torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
    try:
        dev = torch.device(device)
    except RuntimeError as e:
        raise PrecisionError(f"unknown device {device!r}: {e}") from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise PrecisionError(f"device {device!r} asked for, but CUDA is not available on this machine")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise PrecisionError(f"device {device!r} asked for, but only {torch.cuda.device_count()} CUDA device(s)")
    return dev


def auto_preset(device: torch.device | str | None = None) -> tuple[str, str]:
    """The preset `auto` resolves to on `device`, and why, in one sentence."""
    dev = resolve_device(device if device is not None else "auto")
    if dev.type == "cuda":
        idx = dev.index if dev.index is not None else torch.cuda.current_device()
        major, minor = torch.cuda.get_device_capability(idx)
        name = torch.cuda.get_device_name(idx)
        if major >= 8:
            return "bf16-true", f"{name} (cc {major}.{minor}) has native bf16"
        return "fp16-mixed", f"{name} (cc {major}.{minor}) has no native bf16 (needs cc >= 8.0); fp16 with loss scaling"
    if dev.type == "cpu":
        if cpu_has_native_bf16():
            return "bf16-true", "CPU has native bf16 (AVX512-BF16/AMX)"
        return "fp32", "CPU has no AVX512-BF16/AMX, so bf16 would be emulated; fp32 is exact and not much slower"
    return "fp32", f"no rule for device type {dev.type!r}; fp32 is always correct"


def resolve(precision: str | Precision = "auto", device: torch.device | str | None = None) -> Precision:
    """A Precision from a preset name (or a Precision, returned as is). Unknown name -> one-line error."""
    if isinstance(precision, Precision):
        return precision
    key = str(precision).strip().lower()
    if key == "auto":
        name, why = auto_preset(device)
        return replace(PRESETS[name], reason=f"auto -> {name}: {why}")
    if key not in PRESETS:
        raise PrecisionError(f"unknown precision {precision!r}; valid: {', '.join(PRESET_NAMES)}")
    return replace(PRESETS[key], reason="chosen by name")
