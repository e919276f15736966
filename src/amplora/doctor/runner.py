"""`amplora doctor run SCRIPT [ARGS...]`: run a script as __main__ with the doctor watching.

Exit codes: the script's own when it ends normally or calls sys.exit; FAULT_EXIT (4) after a diagnosed dtype/device
fault; OOM_EXIT (6) after a diagnosed out-of-memory error; 1 for any other uncaught exception (its traceback printed, as Python would); NONFINITE_EXIT (7) when the
script would have exited 0 but inf/NaN appeared on the way (its origin printed; allow_nonfinite keeps the 0).
A note (a hazard seen on the way, such as an fp16 optimizer state whose eps is 0) is printed and keeps the exit code.
"""
from __future__ import annotations

import json
import os
import runpy
import sys
import traceback

from rich.console import Console

from amplora.doctor import render
from amplora.doctor.fault import PrecisionFault
from amplora.doctor.watch import watch
from amplora.errors import AmploraError

FAULT_EXIT = 4
OOM_EXIT = 6  # as a run that does not fit: out of memory, diagnosed
NONFINITE_EXIT = 7


def _exit_code(e: SystemExit) -> int:
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code
    print(e.code, file=sys.stderr)  # sys.exit("message") prints the message and exits 1
    return 1


def run_script(script: str, argv: list[str], *, report: bool = False, json_path: str | None = None,
               show_traceback: bool = False, console: Console | None = None, allow_nonfinite: bool = False) -> int:
    path = os.path.abspath(script)
    if not os.path.isfile(path):
        raise AmploraError(f"no such script: {script}")
    console = console or render.make_console(stderr=True)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *argv]
    sys.path.insert(0, os.path.dirname(path))  # as `python script.py` would
    watcher = watch(report=report)
    fault: PrecisionFault | None = None
    code = 0
    try:
        with watcher:
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        code = _exit_code(e)
    except PrecisionFault as f:
        fault, code = f, OOM_EXIT if f.kind == "memory" else FAULT_EXIT
    except Exception:
        traceback.print_exc()
        code = 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        sys.stdout.flush()
    table = watcher.flow_table() if report else []
    if report:
        render.flow(table, console)
    nonfinite = watcher.nonfinite
    if nonfinite is not None:
        render.nonfinite(nonfinite, console)
        if code == 0 and not allow_nonfinite:
            code = NONFINITE_EXIT
    notes = watcher.notes if fault is None and nonfinite is None else []  # a finding already tells its cause
    for note in notes:
        render.note(note, console)
    if fault is not None:
        if show_traceback and fault.__cause__ is not None:
            traceback.print_exception(fault.__cause__)
        render.fault(fault, console)
    if json_path:
        data = {"script": script, "args": argv, "exit_code": code,
                "fault": fault.as_dict() if fault is not None else None,
                "nonfinite": nonfinite.as_dict() if nonfinite is not None else None, "notes": notes,
                "flow": table, "warnings": [f"{r['module']}: {w}" for r in table for w in r["warnings"]]}
        try:  # a plain open(): the file gets the user's umask like any other output
            with open(json_path, "w") as f:
                json.dump(data, f, indent=1)
        except OSError as e:
            raise AmploraError(f"cannot write --json {json_path}: {e.strerror or e}") from None
    return code
