"""Out of memory, explained: the phase and module where memory ran out, the peak so far, the estimate for the
run (memory.py) and the levers that make it fit (memory_plan.fixes). Not a knowledge-base entry: `explain` leaves
a bare OOM message unrecognised, since only the live run knows the model and the batch."""
from __future__ import annotations

import re
import resource
import sys

import torch

from amplora.doctor.capture import find_capture, scan_frames, traceback_frames
from amplora.doctor.diagnose import _roots, error_message, phase_of
from amplora.doctor.fault import PrecisionFault
from amplora.doctor.memory import Settings, estimate
from amplora.doctor.memory_plan import fixes, resolved, size_text
from amplora.doctor.naming import Namer

_OOM = re.compile(r"out of memory|DefaultCPUAllocator: can't allocate memory|not enough memory: you tried to "
                  r"allocate|OutOfMemoryError", re.IGNORECASE)
_ASKED = re.compile(r"[Tt]ried to allocate ([\d.]+ ?[KMGT]?i?B|\d+ bytes)")


def is_oom(exc: BaseException) -> bool:
    return isinstance(exc, torch.OutOfMemoryError) or bool(_OOM.search(str(exc)))


def _asked(message: str) -> str:
    m = _ASKED.search(message)
    if not m:
        return "?"
    text = m.group(1)
    return size_text(int(text.split()[0])) if text.endswith("bytes") else text


def _peak(device: str) -> str:
    if device.startswith("cuda") and torch.cuda.is_available():
        return f"{size_text(torch.cuda.max_memory_allocated())} allocated by tensors (torch.cuda.max_memory_allocated)"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return f"{size_text(rss)} resident (the process's peak RSS)"


def _settings_of(root, facts, settings):
    """memory.Settings for the estimate: given (amplora train), else read off the model and its input."""

    if settings is not None:
        return settings
    shape = next((tuple(t.shape) for t in facts.root_inputs if t.dtype == torch.long and t.dim() == 2), None)
    if shape is None:
        return None
    return Settings(batch_size=shape[0], max_length=shape[1])


def diagnose_oom(exc: BaseException, *, recorder=None, model=None, settings=None, device: str | None = None,
                 fault_cls: type[PrecisionFault] = PrecisionFault) -> PrecisionFault | None:
    """A diagnosis (PrecisionFault with kind 'memory', key 'oom') for an out-of-memory error, or None."""
    if not is_oom(exc):
        return None
    try:
        cap, carrier = find_capture(exc)
        facts = cap.facts if cap is not None else scan_frames(traceback_frames(carrier))
        phase = phase_of(cap, facts, recorder)
        namer = Namer(_roots(model, facts, recorder))
        module = None
        if phase == "backward" and cap is not None and cap.node_seq >= 0 and recorder is not None:
            module = recorder.module_for_node(cap.node_seq)
        elif facts.modules:
            module = facts.modules[0]
        path = namer.module_path(module) if module is not None else None
        message = str(carrier)
        device = device or ("cuda" if "CUDA" in message else "cpu")
        roots = namer.roots()
        root = model if model is not None else (roots[0] if roots else None)
        where = f" in {path}" if path else ""
        culprit = f"{phase}{where} asked for {_asked(message)} more; peak so far {_peak(device)}"
        cause = f"The {device.split(':')[0].upper()} ran out of memory during the {phase}{where}."
        fix = _levers(root, _settings_of(root, facts, settings), device)
        return fault_cls(phase=phase, module=path, op=cap.op if cap is not None else None, operands=[],
                         culprit=culprit, cause=cause, fix=fix, kind="memory", key="oom",
                         error=error_message(carrier), original=exc, where=facts.where)
    except Exception:  # never hide the user's error behind the doctor's own
        return None


def _levers(root, settings, device: str) -> str:
    generic = ("lower the batch size (and raise gradient accumulation to keep the global batch), turn on "
               "activation checkpointing, quantize the base to nf4, train in bf16-true")
    config = getattr(root, "config", None)
    if config is None or settings is None:
        return generic[0].upper() + generic[1:] + "."

    try:
        s = resolved(settings, device)
        est = estimate(config, device=device, settings=s)
    except Exception:
        return generic[0].upper() + generic[1:] + "."
    options = fixes(s)
    halving = [f for f in options if f[0].startswith("--batch-size")]
    one_of_each = halving[:1] + [f for f in options if not f[0].startswith("--batch-size")]  # batch, then the rest
    levers = [f"{label} (estimate {size_text(estimate(config, device=device, settings=alt).planned)})"
              for label, alt in one_of_each[:4]]
    return (f"The estimate for batch {s.batch_size} x {s.max_length} tokens ({s.method}, {s.precision}) is "
            f"{size_text(est.planned)}; levers: " + "; ".join(levers) + " (`amplora doctor --model ...` prints the "
            "plan per device).")
