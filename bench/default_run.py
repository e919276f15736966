#!/usr/bin/env python3
"""The default run, timed: `amplora train` with no arguments, in a fresh process, everything included.

Records wall time (process start to exit: imports, model load, before-eval, training, after-eval, report) and the
held-out scores before and after training, then prints a markdown summary for the README.

    .venv/bin/python bench/default_run.py           # warm model cache (the usual case after the first run)
    .venv/bin/python bench/default_run.py --cold    # empty model cache: includes the one-time GGUF conversion

Other engineers' jobs on the same cores slow it down: the load average at start and end is printed with it.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_S = 600  # the budget: 10 minutes on a 2-core CPU


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", action="store_true", help="use an empty model cache (includes the GGUF conversion)")
    ap.add_argument("--output", default=None, help="run directory (default: runs/default-<timestamp>)")
    ap.add_argument("extra", nargs="*", help="extra arguments passed to `amplora train` (none for the default run)")
    args = ap.parse_args()

    out = Path(args.output or Path("runs") / time.strftime("default-%Y%m%d-%H%M%S"))
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    cold_cache = None
    if args.cold:
        cold_cache = tempfile.mkdtemp(prefix="amplora-cold-cache-")
        env["AMPLORA_CACHE"] = cold_cache
    cmd = [sys.executable, "-m", "amplora", "train", "--output", str(out), *args.extra]
    load_start = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env)
    wall = time.perf_counter() - start
    load_end = os.getloadavg()[0]
    if proc.returncode != 0:
        print(f"amplora train failed with exit code {proc.returncode}", file=sys.stderr)
        return proc.returncode

    summary = json.loads((out / "summary.json").read_text())
    before, after = summary["before"], summary["after"]
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M"), "machine": f"{os.cpu_count()} cores, {cpu_name()}",
        "cache": "cold (GGUF conversion included)" if args.cold else "warm",
        "wall_s": round(wall, 1), "within_budget": wall <= LIMIT_S, "load_avg_start_end": [load_start, load_end],
        "before": {"exact_match": before["exact_match"], "fields": before["fields"]},
        "after": {"exact_match": after["exact_match"], "fields": after["fields"]},
        "n_held_out": after["n"], "steps": summary["facts"]["steps"],
        "train_seconds": summary["facts"]["train seconds (this process)"],
        "tokens_per_s": summary["facts"]["tokens/s (this process)"],
        "eval_seconds_before_after": summary["facts"]["eval seconds before / after"],
        "precision": summary["policy"]["name"], "device": summary["policy"]["device"], "output": str(out),
    }
    (out / "bench_default_run.json").write_text(json.dumps(result, indent=2) + "\n")

    def pct(x):
        return f"{100 * x:.1f}%"

    print("\n## Default run (`amplora train`, no arguments)\n")
    print(f"{result['date']}, {result['machine']}, model cache {result['cache']}, "
          f"load average {load_start:.1f} -> {load_end:.1f}\n")
    print("| | before | after |\n|---|---|---|")
    print(f"| exact match ({after['n']} held-out) | {pct(before['exact_match'])} | {pct(after['exact_match'])} |")
    for k, v in after["fields"].items():
        print(f"| field `{k}` | {pct(before['fields'].get(k, 0.0))} | {pct(v)} |")
    print(f"\nwall time {wall:.0f} s (budget {LIMIT_S} s: {'ok' if wall <= LIMIT_S else 'OVER'}); "
          f"{result['steps']} steps, training {result['train_seconds']} s at {result['tokens_per_s']} tokens/s; "
          f"eval before/after {result['eval_seconds_before_after']} s; precision {result['precision']} on "
          f"{result['device']}")
    if cold_cache:
        import shutil

        shutil.rmtree(cold_cache, ignore_errors=True)
    return 0 if wall <= LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
