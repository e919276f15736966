"""Measured memory of a training run: current and peak, per logging window, per rank.

CUDA: the caching allocator's counters (allocated = live tensors, reserved = what the allocator holds from the
device); host-side counters, so reading them adds no device sync to a step. CPU: the process's resident memory
(VmRSS / VmHWM from /proc/self/status), which holds everything the process has — Python, the libraries, the
model as loaded — not only tensors.

A window's peak: CUDA resets the allocator's peak counter at each window start. On Linux, writing "5" to
/proc/self/clear_refs resets VmHWM to the current RSS; where that is refused (another kernel, a sandbox), the
peak is the highest RSS sampled at step ends, and a lower bound (`exact_peak` says which).
"""
from __future__ import annotations

import resource
import sys

import torch

from amplora.train import distributed as dist_
from amplora.train.distributed import Dist

_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"


def _status_bytes() -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in bytes, or None where /proc is not there."""
    found = {}
    try:
        with open(_STATUS, "rb") as f:
            for line in f:
                if line.startswith((b"VmRSS:", b"VmHWM:")):
                    key, value = line.split(b":", 1)
                    found[key] = int(value.split()[0]) * 1024  # always kB
    except (OSError, ValueError):
        return None
    return (found[b"VmRSS"], found[b"VmHWM"]) if len(found) == 2 else None


def _lifetime_peak_rss() -> int:
    """getrusage's ru_maxrss: kilobytes on Linux, bytes on macOS."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _reset_hwm() -> bool:
    try:
        with open(_CLEAR_REFS, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def size(n: int | float | None) -> str:
    """Bytes for people: GiB above a tenth of one, else MiB (printed GB / MB, as tools commonly do)."""
    return "-" if n is None else f"{n / 2**30:.2f} GB" if n >= 2**30 / 10 else f"{n / 2**20:.0f} MB"


def _with_peak(current: int, peak: int) -> str:
    """"0.37 GB (peak 0.41)": one unit, the peak's."""
    unit, div, fmt = ("GB", 2**30, ".2f") if peak >= 2**30 / 10 else ("MB", 2**20, ".0f")
    return f"{current / div:{fmt}} {unit} (peak {peak / div:{fmt}})"


def line(mem: dict) -> str:
    """The progress line's memory text: current and peak (CUDA: allocated and its peak, then reserved); under
    torchrun rank 0's, then the highest peak of any rank."""
    if "reserved" in mem:
        text = f"alloc {_with_peak(mem['current'], mem['peak'])}, reserved {size(mem['reserved'])}"
    else:
        text = f"mem {_with_peak(mem['current'], mem['peak'])}"
    if mem.get("ranks_peak") is not None:
        text += f", max over ranks {size(mem['ranks_peak'])}"
    return text


class MemoryMeter:
    """now() per step for the progress line; record() per logged step for metrics.jsonl, which ends the window."""

    def __init__(self, device: torch.device, dist: Dist | None = None):
        self.device, self.dist = device, dist or Dist()
        self.cuda = device.type == "cuda"
        self.kind = "cuda" if self.cuda else "cpu"
        self.run_peak = 0  # this process's highest window peak so far
        self.peak_by_rank = [0] * self.dist.world  # every rank's run peak, as of the last record()
        self.run_peak_reserved = 0  # CUDA
        self.exact_peak = True  # False once a CPU window's peak had to be sampled (no resettable VmHWM)
        self._can_reset: bool | None = None  # unknown until the first window ends
        self._sampled_peak = 0  # where VmHWM cannot be reset: the highest RSS seen in this window

    def _window(self) -> dict:
        """{"current", "peak" (of this window), ("reserved")} in bytes."""
        if self.cuda:
            return {"current": torch.cuda.memory_allocated(self.device),
                    "peak": torch.cuda.max_memory_allocated(self.device),
                    "reserved": torch.cuda.memory_reserved(self.device)}
        status = _status_bytes()
        if status is None:  # no /proc: the lifetime peak is all there is
            self.exact_peak = False
            return {"current": _lifetime_peak_rss(), "peak": _lifetime_peak_rss()}
        rss, hwm = status
        if self._can_reset is False:
            self._sampled_peak = max(self._sampled_peak, rss)
            return {"current": rss, "peak": self._sampled_peak}
        return {"current": rss, "peak": hwm}

    def now(self) -> dict:
        """At a step end, for the progress line: this process's current memory and peak so far, and under
        torchrun "ranks_peak", the highest peak of any rank as of the last record() (no collective per step). On a
        CPU whose VmHWM cannot be reset this is also where the window's peak is sampled."""
        out = self._window()
        out["peak"] = max(self.run_peak, out["peak"])
        if self.dist.enabled:
            out["ranks_peak"] = max(out["peak"], *self.peak_by_rank)
        return out

    def read(self) -> dict:
        """This window's reading (current, peak, reserved), then a new window starts."""
        out = self._window()
        if self.cuda:
            self.run_peak_reserved = max(self.run_peak_reserved, torch.cuda.max_memory_reserved(self.device))
            torch.cuda.reset_peak_memory_stats(self.device)
        else:
            self.exact_peak = self.exact_peak and self._can_reset is not False
            self._can_reset = _reset_hwm()
            self._sampled_peak = out["current"]
        self.run_peak = max(self.run_peak, out["peak"])
        return out

    def record(self) -> dict:
        """read() as metrics.jsonl fields (mem_current_bytes, mem_peak_bytes, CUDA: mem_reserved_bytes). Under
        torchrun every rank must call it (one all-reduce): the fields hold the max over ranks, and
        `mem_*_bytes_by_rank` lists hold each rank's own value."""
        mine = self.read()
        out = {"mem_device": self.kind}
        d = self.dist
        if not d.enabled:
            self.peak_by_rank = [self.run_peak]
            return out | {f"mem_{k}_bytes": v for k, v in mine.items()}
        keys = list(mine)
        flat = [0.0] * (len(keys) * d.world)  # rank-slotted, so one sum hands every rank every rank's numbers
        for i, k in enumerate(keys):
            flat[i * d.world + d.rank] = float(mine[k])
        summed = dist_.all_sum(flat, d, self.device)
        for i, k in enumerate(keys):
            per_rank = [int(v) for v in summed[i * d.world:(i + 1) * d.world]]
            out[f"mem_{k}_bytes"] = max(per_rank)
            out[f"mem_{k}_bytes_by_rank"] = per_rank
        self.peak_by_rank = [max(a, b) for a, b in zip(self.peak_by_rank, out["mem_peak_bytes_by_rank"])]
        return out

    def describe(self) -> str:
        """What is measured, in words, for the report."""
        if self.cuda:
            return "CUDA caching allocator: peak of allocated (live tensors); reserved = held by the allocator"
        return "process resident memory (RSS: the whole process, Python and libraries included)" + \
            ("" if self.exact_peak else "; peaks sampled at step ends (a lower bound)")

    def summary(self, history: list[dict], startup: dict) -> dict:
        """summary.json's "memory": the run's peaks from this process's meter and the logged records. `startup`:
        the record() taken before the first scoring (imports and model loading)."""
        train = [r["mem_peak_bytes"] for r in history if r.get("kind") == "train" and "mem_peak_bytes" in r]
        out = {"device": self.kind, "measured": self.describe(), "peak_bytes": max(self.peak_by_rank),
               "train_peak_bytes": max(train) if train else None,
               "startup_peak_bytes": startup.get("mem_peak_bytes")}
        if self.dist.enabled:
            out["peak_bytes_by_rank"] = list(self.peak_by_rank)
        if self.cuda:
            out["reserved_peak_bytes"] = self.run_peak_reserved  # this process's (rank 0's under torchrun)
        return out


def estimate(cfg, device: torch.device, precision: str) -> dict | None:
    """The memory planner's estimate for this run (amplora.doctor.memory), or None where it cannot say (a model
    whose config it cannot read). One process holding the whole model: FSDP's sharding is not counted."""
    from dataclasses import replace

    from amplora.doctor.memory import Settings, estimate as plan_estimate
    from amplora.doctor.memory_plan import model_config
    from amplora.errors import AmploraError

    try:
        est = plan_estimate(model_config(cfg.model), device=device.type,
                            settings=replace(Settings.of(cfg), precision=precision))
    except (AmploraError, OSError, ValueError, KeyError):
        return None
    return {"tensor_peak_bytes": est.total, "planned_bytes": est.planned}
