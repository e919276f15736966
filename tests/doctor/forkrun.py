"""Many `python -m amplora ARGS` runs from one interpreter that imported torch and transformers once.

Each run is a child forked from that interpreter: a fresh process with its own exit code, stdout and stderr, as a
subprocess would be, minus the seconds of imports every subprocess repeats (most of a tiny script's run). The
parent imports nothing that starts threads (no tokenizers, no datasets / pyarrow), so forking it is safe.

    run_many([["doctor", "run", "a.py"], ...], cwd=..., env_extra={...}, workers=2) -> [CompletedProcess, ...]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# imported once in the parent: what nearly every script and the doctor import
PRELOAD = ("numpy", "torch", "transformers", "transformers.modeling_utils", "amplora.cli", "amplora.doctor.runner")


def run_many(argvs: list[list[str]], *, cwd: Path, env_extra: dict | None = None, workers: int = 2,
             timeout: int = 300) -> list[subprocess.CompletedProcess]:
    env = dict(os.environ, PYTHONWARNINGS="ignore", **(env_extra or {}))
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [dict(argv=argv, out=f"{tmp}/{i}.out", err=f"{tmp}/{i}.err") for i, argv in enumerate(argvs)]
        plan = Path(tmp, "plan.json")
        plan.write_text(json.dumps(dict(cwd=str(cwd), workers=workers, timeout=timeout, jobs=jobs)))
        subprocess.run([sys.executable, __file__, str(plan)], env=env, cwd=cwd, check=True,
                       timeout=timeout * len(jobs) / workers + 120)
        codes = json.loads(Path(tmp, "codes.json").read_text())
        return [subprocess.CompletedProcess([sys.executable, "-m", "amplora", *job["argv"]], code,
                                            Path(job["out"]).read_text(errors="replace"),
                                            Path(job["err"]).read_text(errors="replace"))
                for job, code in zip(jobs, codes)]


def _child(job: dict, timeout: int) -> None:
    """In the forked child: become `python -m amplora ARGV` and exit with its code."""
    import signal
    import traceback

    from amplora.cli import main

    code = 1
    try:
        for fd, path in ((1, job["out"]), (2, job["err"])):
            f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(f, fd)
            os.close(f)
        signal.alarm(timeout)  # its default action ends the child, as subprocess.run's timeout would
        sys.argv = ["amplora", *job["argv"]]
        code = main(job["argv"])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _serve(plan_path: str) -> None:
    plan = json.loads(Path(plan_path).read_text())
    sys.path[0] = plan["cwd"]  # as `python -m` run from that directory has it, not this file's directory
    from amplora.cli import set_process_env

    set_process_env()  # before torch is imported, as `python -m amplora` does
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    jobs, codes, running = list(enumerate(plan["jobs"])), [None] * len(plan["jobs"]), {}
    while jobs or running:
        while jobs and len(running) < plan["workers"]:
            i, job = jobs.pop(0)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(job, plan["timeout"])
            running[pid] = i
        pid, status = os.wait()
        codes[running.pop(pid)] = os.waitstatus_to_exitcode(status)
    Path(plan_path).with_name("codes.json").write_text(json.dumps(codes))


if __name__ == "__main__":
    _serve(sys.argv[1])
