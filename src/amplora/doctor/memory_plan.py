"""Where a run fits: the memory estimate against each device's free memory, the first setting to change where it
does not, and the choice `device=auto` makes.

    rows = plan(config, Settings(batch_size=32))          # one DevicePlan per device
    device = pick_device(config, Settings(...))            # "cuda:0" / "cpu", or MemoryPlanError with the table
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from amplora.doctor.memory import Estimate, Settings, estimate, read_config, shape_of
from amplora.errors import AmploraError
from amplora.model_configs import builtin_config

GiB = 2**30


class MemoryPlanError(AmploraError):
    """The run fits on no device. str() is one line; `.table` is the per-device table to print before it."""

    exit_code = 6

    def __init__(self, message: str, table: str, rows: list):
        super().__init__(message)
        self.table, self.rows = table, rows


@dataclass
class DevicePlan:
    device: str  # "cpu", "cuda:0", ...
    name: str
    free: int | None  # bytes free now (None: unknown)
    estimate: Estimate
    fix: str | None = None  # the first setting that makes the run fit, when it does not

    @property
    def fits(self) -> bool | None:
        return None if self.free is None else self.estimate.planned <= self.free

    def as_dict(self) -> dict:
        return {"device": self.device, "name": self.name, "free": self.free, "fits": self.fits,
                "estimate": self.estimate.as_dict(), "fix": self.fix}


def model_config(spec: str) -> dict:
    """--model for a memory plan, without loading weights: a built-in name, a model directory or a config.json."""
    config = builtin_config(spec)
    if config is not None:
        return config
    path = Path(str(spec)).expanduser()
    if path.is_dir() and not (path / "config.json").is_file():
        raise AmploraError(f"model directory {path} has no config.json (not a Hugging Face model directory)")
    if not path.exists():
        raise AmploraError(f"unknown model {spec!r}: use smollm2-135m, tiny, a local Hugging Face model directory "
                           f"or its config.json")
    return read_config(path)


def devices() -> list[tuple[str, str, int | None]]:
    """(id, name, free bytes) of every device: CUDA devices (torch.cuda.mem_get_info), then the CPU
    (MemAvailable from /proc/meminfo)."""
    import torch

    out = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            free, _ = torch.cuda.mem_get_info(i)
            out.append((f"cuda:{i}", torch.cuda.get_device_name(i), int(free)))
    out.append(("cpu", "CPU (host memory)", cpu_available()))
    return out


def cpu_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def resolved(settings: Settings, device: str) -> Settings:
    """`precision=auto` as it resolves on `device` (amplora.precision's rule); other presets unchanged."""
    if settings.precision != "auto":
        return settings
    from amplora.precision import auto_preset

    return replace(settings, precision=auto_preset(device)[0])


def fixes(settings: Settings) -> list[tuple[str, Settings]]:
    """Changes to try, in order: halve the batch (accumulation keeps the global batch), activation checkpointing,
    an NF4 base, bf16-true; then all of them together."""
    s, out = settings, []
    b, ga = s.batch_size, s.grad_accum
    while b > 1:
        b, ga = (b + 1) // 2, ga * 2
        out.append((f"--batch-size {b} --grad-accum {ga}", replace(s, batch_size=b, grad_accum=ga)))
    if not s.activation_checkpointing:
        out.append(("--activation-checkpointing", replace(s, activation_checkpointing=True)))
    if s.quantize != "nf4":
        out.append(("--quantize nf4", replace(s, quantize="nf4")))
    if s.precision in ("fp32", "bf16-mixed", "fp16-mixed"):
        out.append(("--precision bf16-true", replace(s, precision="bf16-true")))
    every = replace(s, batch_size=1, grad_accum=s.grad_accum * s.batch_size, activation_checkpointing=True,
                    quantize="nf4", precision="bf16-true")
    if every != s:
        out.append(("all of: --batch-size 1 --grad-accum "
                     f"{every.grad_accum} --activation-checkpointing --quantize nf4 --precision bf16-true", every))
    return out


def plan(config, settings: Settings, device_list=None) -> list[DevicePlan]:
    """The estimate on every device (precision=auto resolved per device), with the first fix where it does not
    fit. device_list: (id, name, free bytes) tuples; default: this machine's (devices())."""
    shape = shape_of(config)
    rows = []
    for dev, name, free in (devices() if device_list is None else device_list):
        s = resolved(settings, dev)
        row = DevicePlan(dev, name, free, estimate(shape, device=dev, settings=s))
        if row.fits is False:
            row.fix = next((label for label, alt in fixes(s)
                            if estimate(shape, device=dev, settings=alt).planned <= free), "none fits")
        rows.append(row)
    return rows


def table(rows: list[DevicePlan]) -> str:
    """The plan as a plain-text table (also what MemoryPlanError carries)."""
    head = ("device", "estimate", "free", "fits", "to make it fit")
    lines = [head]
    for r in rows:
        fits = "?" if r.fits is None else "yes" if r.fits else "no"
        lines.append((r.device, size_text(r.estimate.planned), size_text(r.free), fits, r.fix or ""))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def breakdown(est: Estimate) -> str:
    parts = ", ".join(f"{k} {size_text(v)}" for k, v in est.parts.items())
    extra = f"; allocator allowance {size_text(est.overhead)}" if est.overhead else ""
    return f"peak {size_text(est.total)} = {parts} (not all at once){extra}"


def pick_device(config, settings: Settings, device_list=None) -> str:
    """`device=auto`: the first device the run fits on (CUDA devices before the CPU). Fits nowhere ->
    MemoryPlanError, before any weight is loaded. A device whose free memory is unknown counts as fitting."""
    rows = plan(config, settings, device_list)
    for r in rows:
        if r.fits is not False:
            return r.device
    summary = "; ".join(f"{r.device}: needs {size_text(r.estimate.planned)}, {size_text(r.free)} free, try {r.fix}"
                        for r in rows)
    raise MemoryPlanError(f"the run fits on no device ({summary})", table(rows), rows)


def size_text(n: int | None) -> str:
    """Bytes for a person: GiB from 1 GiB up, else MiB; "?" when unknown."""
    if n is None:
        return "?"
    return f"{n / GiB:.2f} GiB" if n >= GiB else f"{n / 2**20:.1f} MiB"
