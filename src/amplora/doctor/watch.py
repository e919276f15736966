"""`amplora.doctor.watch()`: run code with the doctor watching; a dtype/device fault becomes a PrecisionFault.

    with amplora.doctor.watch(model):
        train_step()          # any fault: PrecisionFault(phase, module, op, operands, culprit, cause, fix)

Other exceptions pass through untouched. Non-finite values (inf/NaN) raise nothing: the first one is traced to its
origin and kept as `watcher.nonfinite` (a nonfinite.NonFinite, or None); `nonfinite=False` turns that off.

Faults are converted where the `with` block ends (the original exception is `__cause__`); `eager=True` converts at
the failing op instead (for DoctorCallback, where no `with` block surrounds the training loop), as a subclass of the original exception type so existing handlers still match.
"""
from __future__ import annotations

import warnings

from torch.utils._python_dispatch import _get_current_dispatch_mode

from amplora.doctor.diagnose import diagnose
from amplora.doctor.fault import PrecisionFault, typed_fault_class
from amplora.doctor.flow import FlowRecorder
from amplora.doctor.naming import Namer
from amplora.doctor.nonfinite_watch import NonFiniteWatch
from amplora.doctor.oom import diagnose_oom
from amplora.doctor.tracer import FaultCatcher, Recorder


class Watcher:
    def __init__(self, model=None, *, report: bool = False, eager: bool = False, nonfinite: bool = True):
        self.model = model
        self.report_enabled = report
        self.eager = eager
        self.recorder = Recorder()
        self.flow = FlowRecorder() if report else None
        self.nonfinite_watch = NonFiniteWatch(self.recorder, model) if nonfinite else None
        self.fault: PrecisionFault | None = None
        self._mode: FaultCatcher | None = None

    # ---- lifecycle ------------------------------------------------------------------------------------------
    def start(self) -> "Watcher":
        if self._mode is not None:
            return self
        self.recorder.install()
        if self.flow is not None:
            self.flow.install()
        if self.nonfinite_watch is not None:
            self.nonfinite_watch.install()
        self._mode = FaultCatcher(on_capture=self._raise_at_op if self.eager else None,
                                  on_scalar=self.nonfinite_watch.scalar if self.nonfinite_watch is not None else None,
                                  on_op=self.nonfinite_watch.op if self.nonfinite_watch is not None else None)
        self._mode.__enter__()
        return self

    def stop(self, *, quiet: bool = False) -> bool:
        """Stop watching. Another dispatch mode left on top of ours: warn and leave ours underneath (True), or with
        quiet=True change nothing and return False."""
        if self._mode is None:
            return True
        if _get_current_dispatch_mode() is self._mode:
            self._mode.__exit__(None, None, None)
        elif not quiet:  # someone pushed a mode after us and did not pop it: leave both rather than pop theirs
            warnings.warn("amplora doctor: another dispatch mode is still active; the doctor's stays underneath",
                          RuntimeWarning, stacklevel=2)
        else:
            return False
        self._mode = None
        self.recorder.remove()
        if self.flow is not None:
            self.flow.remove()
        if self.nonfinite_watch is not None:
            self.nonfinite_watch.remove()
        return True

    @property
    def nonfinite(self):
        """Where inf/NaN first appeared (nonfinite.NonFinite), or None when every checked value was finite; while the
        watch runs, a gradient overflow counts only once something non-finite followed it."""
        return self.nonfinite_watch.finding(final=not self.active) if self.nonfinite_watch is not None else None

    @property
    def notes(self) -> list[str]:
        """Hazards seen on the way that need not make anything non-finite (an fp16 optimizer state whose eps is 0)."""
        return list(self.nonfinite_watch.notes) if self.nonfinite_watch is not None else []

    @property
    def active(self) -> bool:
        return self._mode is not None

    def __enter__(self) -> "Watcher":
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> bool:
        self.stop()
        if exc is None or isinstance(exc, PrecisionFault) or not isinstance(exc, Exception):
            return False
        fault = self.diagnose(exc)
        if fault is None:
            return False
        raise fault from exc

    # ---- diagnosis ------------------------------------------------------------------------------------------
    def diagnose(self, exc: BaseException, fault_cls: type[PrecisionFault] = PrecisionFault) -> PrecisionFault | None:
        """The PrecisionFault for `exc` (None when it is not a dtype/device fault)."""
        if isinstance(exc, PrecisionFault):
            return exc
        fault = diagnose(exc, recorder=self.recorder, model=self.model, fault_cls=fault_cls)
        if fault is None:
            fault = diagnose_oom(exc, recorder=self.recorder, model=self.model, fault_cls=fault_cls)
        if fault is not None:
            self.fault = fault
        return fault

    def _raise_at_op(self, capture, exc):
        fault = self.diagnose(exc, fault_cls=typed_fault_class(type(exc)))
        if fault is not None:  # the run is over: stop watching at the next module call, outside any op
            self.recorder.pending = self._stop_after_fault
        return fault

    def _stop_after_fault(self) -> None:
        if not self.stop(quiet=True):
            self.recorder.pending = self._stop_after_fault

    # ---- --report -------------------------------------------------------------------------------------------
    def namer(self) -> Namer:
        return Namer(([self.model] if self.model is not None else []) + list(reversed(self.recorder.roots)))

    def flow_table(self) -> list[dict]:
        """Per-module dtype flow (report=True only): module, type, calls, inputs, params, outputs, autocast,
        warnings."""
        return self.flow.table(self.namer()) if self.flow is not None else []

    def flow_warnings(self) -> list[str]:
        return [f"{row['module']}: {w}" for row in self.flow_table() for w in row["warnings"]]


def watch(model=None, *, report: bool = False, eager: bool = False, nonfinite: bool = True) -> Watcher:
    """Watch the code in a `with` block for dtype/device faults and non-finite values (see module docstring)."""
    return Watcher(model, report=report, eager=eager, nonfinite=nonfinite)
