"""Integrations with other training stacks.

`DoctorCallback` for `transformers.Trainer`:

    trainer = Trainer(..., callbacks=[DoctorCallback()])

- at train start: a preflight (cached kernel probes; its warnings are logged);
- during training, in-loop evaluation and other callbacks (e.g. a sampling callback calling `model.generate()`):
  the doctor watches; a dtype/device fault is raised at the failing op as a PrecisionFault that is also an
  instance of the original exception type, so `trainer.train()` fails with the diagnosis instead of a bare error.
- an amplora model's adapters track the Trainer's optimizer for the duration of training
  (`amplora.track_optimizer`: what they keep per state of their weights lives until its next step);
- inf/NaN values: the first one is traced to its origin (phase, module, op, magnitudes, cause, fix), logged as a
  warning at the end of that step and kept as `callback.nonfinite`; training goes on (the Trainer decides).
- notes (hazards that need not make anything non-finite, such as an fp16 optimizer state whose eps is 0): logged as
  warnings at the end of the step that showed them and kept in `callback.notes`.
- faults raised outside any torch op (e.g. "Attempting to unscale FP16 gradients") are diagnosed by a
  `sys.excepthook` installed for the duration of training, when they end the program uncaught.
"""
from __future__ import annotations

import logging
import sys

from transformers import TrainerCallback

from amplora.doctor.watch import Watcher

logger = logging.getLogger("amplora.doctor")


class DoctorCallback(TrainerCallback):
    def __init__(self, preflight: bool = True, report: bool = False):
        self.preflight = preflight
        self.report = report
        self.preflight_info: dict | None = None
        self.watcher: Watcher | None = None
        self._saved_hook = None
        self._tracked = None
        self.nonfinite = None  # nonfinite.NonFinite: where inf/NaN first appeared
        self.notes: list[str] = []

    # ---- training lifecycle ------------------------------------------------------------------------------------
    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self.close()  # a previous train() that ended in a fault may have left its watcher behind
        if self.preflight and state.is_world_process_zero:
            self._run_preflight()
        self.watcher = Watcher(model, report=self.report, eager=True).start()
        optimizer = kwargs.get("optimizer")
        if model is not None and optimizer is not None:
            from amplora.adapters import track_optimizer

            self._tracked = track_optimizer(optimizer, model)
        self._saved_hook = sys.excepthook
        sys.excepthook = self._excepthook

    def on_step_end(self, args, state, control, **kwargs):
        self._report_nonfinite(state)

    def on_train_end(self, args, state, control, **kwargs):
        self._report_nonfinite(state)
        self.close()

    def _report_nonfinite(self, state) -> None:
        found = self.watcher.nonfinite if self.watcher is not None else None
        if found is not None and self.nonfinite is None:
            self.nonfinite = found
            logger.warning("amplora doctor: step %s: %s", state.global_step, found.summary())
        for note in (self.watcher.notes if self.watcher is not None else [])[len(self.notes):]:
            self.notes.append(note)
            logger.warning("amplora doctor: step %s: note: %s", state.global_step, note)

    def close(self) -> None:
        """Stop watching (called at train end; call it yourself if `trainer.train()` raised and you go on)."""
        if self.watcher is not None:
            self.watcher.stop()
            if self.report:
                for line in self.watcher.flow_warnings():
                    logger.warning("amplora doctor: %s", line)
        if self._tracked is not None:
            self._tracked.remove()
            self._tracked = None
        if self._saved_hook is not None and sys.excepthook == self._excepthook:
            sys.excepthook = self._saved_hook
        self._saved_hook = None

    # ---- helpers -------------------------------------------------------------------------------------------------
    def _run_preflight(self) -> None:
        from amplora.doctor.preflight import collect

        try:
            self.preflight_info = info = collect()
        except Exception as e:  # a preflight problem must not stop training
            logger.warning("amplora doctor: preflight failed: %s: %s", type(e).__name__, e)
            return
        logger.info("amplora doctor: pick %s, precision=auto -> %s (%s)", info["pick"]["device"],
                    info["auto"]["preset"], info["auto"]["why"])
        for w in info["warnings"]:
            logger.warning("amplora doctor: %s", w)

    def _excepthook(self, exc_type, exc, tb):
        watcher = self.watcher
        fault = watcher.diagnose(exc) if watcher is not None and isinstance(exc, Exception) else None
        hook = self._saved_hook or sys.__excepthook__
        self.close()
        if fault is not None and fault is not exc:
            fault.__cause__ = exc
            hook(type(fault), fault, tb)
        else:
            hook(exc_type, exc, tb)
