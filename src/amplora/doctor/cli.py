"""Subcommands of the doctor part: `amplora doctor [--json]`, `amplora doctor run SCRIPT`, `amplora explain`."""
from __future__ import annotations

import argparse
import json
import sys

EXPLAIN_UNRECOGNIZED = 3


def register(sub) -> None:
    p = sub.add_parser("doctor", help="precision preflight; `doctor run SCRIPT` watches a script for dtype faults",
                       description="Without an action: preflight (versions, devices, probed kernels, what "
                                   "precision=auto resolves to, warnings).")
    p.add_argument("--json", action="store_true", help="print the preflight as JSON")
    p.add_argument("--refresh", action="store_true", help="probe kernels again instead of using the cache")
    _memory_arguments(p)
    p.set_defaults(func=_preflight)
    actions = p.add_subparsers(dest="doctor_action", metavar="ACTION", parser_class=_RunParser)
    r = actions.add_parser("run", help="run SCRIPT as __main__ with the doctor watching", allow_abbrev=False,
                           usage="%(prog)s [--report] [--json FILE] [--traceback] [--allow-nonfinite] SCRIPT "
                                 "[ARGS...]",
                           description="Run a Python script as __main__ with the doctor watching. A dtype/device "
                                       "fault prints a diagnosis and exits 4; inf/NaN values are traced to where they first "
                                       "appeared, and a script that then exits 0 exits 7; otherwise the script's "
                                       "own exit code. "
                                       "Doctor options go before SCRIPT; everything after SCRIPT goes to the script "
                                       "verbatim (a literal `--` included), as `python SCRIPT ARGS...` would pass it.")
    r.add_argument("--report", action="store_true", help="add a per-module dtype-flow table with warnings")
    r.add_argument("--json", dest="json_path", metavar="FILE", help="also write the diagnosis/report as JSON")
    r.add_argument("--traceback", action="store_true", help="print the original traceback before the diagnosis")
    r.add_argument("--allow-nonfinite", action="store_true",
                   help="inf/NaN are expected: print where they first appeared but keep the script's exit code")
    r.add_argument("script", nargs="?", help="the Python script to run (doctor options go before it)")
    r.add_argument("args", nargs="*", metavar="ARGS", help="arguments for the script, passed verbatim")
    r.set_defaults(func=_run)

    e = sub.add_parser("explain", help="cause and fix for a precision error message (or a traceback on stdin)")
    e.add_argument("text", nargs="?", help="the error text; omit it (or pass '-') to read stdin")
    e.add_argument("--json", action="store_true", help="print the explanation as JSON")
    e.set_defaults(func=_explain)


class _RunParser(argparse.ArgumentParser):
    """`doctor run`'s parser: argparse sees only the doctor options before SCRIPT. Left to argparse, the words after
    SCRIPT are not verbatim: it drops a `--` there (`s.py -- --lr 1` reached the script as `--lr 1`), and which `--`
    it drops differs between Python versions."""

    # doctor options that take a value: the word after them is that value, never SCRIPT
    VALUED = ("--json",)

    def parse_known_args(self, args=None, namespace=None):
        args = list(sys.argv[1:] if args is None else args)
        i = 0
        while i < len(args):
            word = args[i]
            if word == "--":  # ends the doctor options: the next word is SCRIPT, even one starting with '-'
                i += 1
                break
            if not word.startswith("-") or word == "-":
                break
            i += 2 if word in self.VALUED else 1
        if i >= len(args):  # no SCRIPT: argparse handles -h, option errors and the missing SCRIPT
            namespace, extras = super().parse_known_args(args, namespace)
            if namespace.script is None and not extras:
                self.error("the following arguments are required: script")
            return namespace, extras
        doctor, script, rest = args[:i], args[i], args[i + 1:]
        if doctor and doctor[-1] == "--":
            doctor = doctor[:-1]
        namespace, extras = super().parse_known_args(doctor, namespace)
        if extras:
            self.error(f"unrecognized doctor option(s) before the script: {' '.join(extras)}")
        namespace.script, namespace.args = script, rest
        return namespace, []


def _console():
    from amplora.doctor.render import make_console

    return make_console()


def _memory_arguments(p) -> None:
    m = p.add_argument_group("memory plan (with --model: a table per device instead of the preflight)")
    m.add_argument("--model", help="smollm2-135m, tiny, a model directory or its config.json (no weights load)")
    m.add_argument("--method", default="lora", choices=("lora", "dora"))
    m.add_argument("--r", type=int, default=16)
    m.add_argument("--targets", default="all-linear")
    m.add_argument("--quantize", default="none", choices=("none", "nf4"))
    m.add_argument("--precision", default="auto")
    m.add_argument("--batch-size", type=int, default=8)
    m.add_argument("--grad-accum", type=int, default=1)
    m.add_argument("--max-length", type=int, default=512)
    m.add_argument("--activation-checkpointing", action="store_true")
    m.add_argument("--loss-chunk-rows", type=int, default=1024)


def _memory(args) -> int:
    from amplora.doctor.memory import Settings
    from amplora.doctor.memory_plan import MemoryPlanError, breakdown, model_config, plan, table

    settings = Settings.of(args)
    rows = plan(model_config(args.model), settings)
    if args.json:
        print(json.dumps({"model": args.model, "devices": [r.as_dict() for r in rows]}, indent=1))
    else:
        print(f"memory plan for {args.model}: {args.method}, batch {args.batch_size} x {args.max_length} tokens")
        print(table(rows))
        for r in rows:
            print(f"{r.device} ({r.estimate.settings.precision}): {breakdown(r.estimate)}")
    return 0 if any(r.fits is not False for r in rows) else MemoryPlanError.exit_code


def _preflight(args) -> int:
    if args.model:
        return _memory(args)
    from amplora.doctor import render
    from amplora.doctor.preflight import collect

    info = collect(use_cache=not args.refresh)
    if args.json:
        print(json.dumps(info, indent=1))
    else:
        render.preflight(info, _console())
    return 0


def _run(args) -> int:
    from amplora.doctor.runner import run_script

    return run_script(args.script, args.args, report=args.report, json_path=args.json_path,
                      show_traceback=args.traceback, allow_nonfinite=args.allow_nonfinite)


def _explain(args) -> int:
    from amplora.doctor import render
    from amplora.doctor.explain import explain
    from amplora.errors import AmploraError

    text = args.text if args.text not in (None, "-") else sys.stdin.read()
    if not text.strip():
        raise AmploraError("explain needs an error message: amplora explain \"ERROR TEXT\" (or pipe a traceback)")
    result = explain(text)
    if args.json:
        print(json.dumps(result.as_dict(), indent=1))
    else:
        render.explanation(result, _console())
    return 0 if result.recognized else EXPLAIN_UNRECOGNIZED
