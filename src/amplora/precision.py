"""The precision policy: one object that decides every dtype in an amplora model.

A policy names five things (see the table in README.md):

    storage   dtype the frozen base weights are kept in (NF4 bases keep their non-quantized parts here)
    compute   dtype matmuls run in (the autocast dtype amplora enforces at the model boundary)
    master    dtype of trainable parameters (adapters), of their gradients and of the gradient all-reduce:
              fp32 in every preset
    logits    dtype of logits, of the output head in the chunked loss, and of the loss
    loss_scaling  dynamic loss scaling (needed for fp16 compute, not for bf16)

and derives the rest from them. Where each is read:

    storage        apply.cast_storage (the frozen base), merge (the folded weight)
    compute        boundary.policy_autocast (the model's region), Precision.to_compute (the one cast of a layer's
                   input, adapters/layers.py and the fast path), the fused node (fast/node.py) computes in the dtype
                   of that input, bitsandbytes' compute dtype (apply)
    master         LoraLinear's adapter parameters; Precision.fsdp_mixed_precision (gradient reduction)
    logits         boundary (outputs.logits), train/chunked_loss.py (the head and the loss)
    grad_gemm      grad_gemm_dtype below: the adapter-gradient GEMMs of the fused node
    loss_scaling   Precision.grad_scaler (the training loop)

DoRA's weight norm and the PiSSA SVD are fp32 whatever the policy: statistics of W, not a precision choice.

Presets are strings a user can read: ``fp32``, ``bf16-true``, ``bf16-mixed``, ``fp16-mixed`` and ``auto``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import torch

from amplora.errors import AmploraError

F32, BF16, F16 = torch.float32, torch.bfloat16, torch.float16
HALF_DTYPES = (F16, BF16)  # the 16-bit floats whose range or precision the doctor watches

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

    @property
    def grad_gemm(self) -> torch.dtype:
        """The dtype of the fused node's adapter-gradient GEMMs under this policy (grad_gemm_dtype)."""
        return grad_gemm_dtype(self.compute)

    def to_compute(self, x: torch.Tensor) -> torch.Tensor:
        """The boundary cast of an adapted layer's input: base layer and adapter both run in the compute dtype,
        whatever arrives (an fp32 activation must never meet a half-precision weight: failure S001)."""
        return x if x.dtype == self.compute else x.to(self.compute)

    def fsdp_mixed_precision(self):
        """This policy on FSDP2's terms. Parameters are gathered in the dtype they are stored in (param_dtype
        None): the frozen base in `storage`, the adapters as `master` masters, and the boundary hooks and
        LoraLinear cast to `compute` as in one process. Casting the adapters to a half dtype for the gather would
        make their gradients half precision before the reduction. Gradients (adapters only) are reduced in
        `master`; outputs keep the dtype the policy gave them."""
        from torch.distributed.fsdp import MixedPrecisionPolicy

        return MixedPrecisionPolicy(param_dtype=None, reduce_dtype=self.master, output_dtype=None,
                                    cast_forward_inputs=False)

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


def grad_gemm_dtype(compute: torch.dtype) -> torch.dtype:
    """The dtype of the adapter-gradient GEMMs (∂A = s·ghᵀ·x, ∂B = s·(hᵀ·gz)ᵀ) and of DoRA's magnitude reduction
    (∂m ∝ Σ_t gy·y) for a compute dtype; the fused node (adapters/fast/node.py) reads it for the dtype of its
    input. Both accumulate in fp32 inside the kernel whatever the operands' dtype; this decides the operands' and
    the result's (for ∂m in bf16: a faster sum, with no fp32 copy of gy·y).
    bf16: the GEMMs run in bf16 (fp32 accumulation, one bf16 rounding of the r-wide result; on CUDA none: the
    GEMM writes its fp32 accumulator for an fp32 master, addmm's out_dtype). Their operands gh and
    h are bf16 products already, so that rounding is of the size of the error they carry, while an fp32 GEMM would
    first copy the tokens-by-width activation and gradient to fp32 for every adapted layer (a bf16 LoRA step on
    CPU took 13% less time without those copies; bench/speed.py reproduces it). It is what autocast + fp32
    adapters (PEFT under bf16 autocast) does too. fp16: fp32, since a token-long sum of loss-scaled fp16 products
    can exceed fp16's range (65504) where fp32 would not. fp32: fp32."""
    return BF16 if compute == BF16 else F32


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
