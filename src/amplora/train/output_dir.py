"""The run's output directory: checked before any work, written only once everything has been validated."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from amplora.errors import AmploraError

RUN_FILES = ("config.yaml", "metrics.jsonl", "report.html", "summary.json")
RUN_DIRS = ("adapter", "adapter-last-good", "checkpoints")


def default_output() -> str:
    return str(Path("runs") / time.strftime("train-%Y%m%d-%H%M%S"))


def holds_run(path: Path) -> bool:
    return any((path / name).exists() for name in RUN_FILES + RUN_DIRS)


def check_writable(path: Path) -> None:
    """Prove we can create files in `path` without leaving anything behind (directories we made are removed)."""
    created = []
    try:
        probe = path
        while not probe.exists():
            created.append(probe)
            probe = probe.parent
        if not probe.is_dir():
            raise AmploraError(f"output directory {path} is not writable: {probe} is a file, not a directory")
        for d in reversed(created):
            d.mkdir()
        fd, name = tempfile.mkstemp(dir=path, prefix=".amplora-probe-")
        os.close(fd)
        os.unlink(name)
    except OSError as e:
        raise AmploraError(f"output directory {path} is not writable: {e.strerror or e}") from None
    finally:
        for d in created:  # innermost first
            try:
                d.rmdir()
            except OSError:
                pass


def check_output(path: Path, resuming: bool, overwrite: bool) -> None:
    if path.exists() and not path.is_dir():
        raise AmploraError(f"output directory {path} is not writable: it is a file")
    if not resuming and path.is_dir() and holds_run(path) and not overwrite:
        raise AmploraError(f"output directory {path} already holds a run; use --resume {path} to continue it, "
                           f"--overwrite to replace it, or another --output")
    check_writable(path)


def clear_previous_run(path: Path) -> None:
    """--overwrite: remove the previous run's files (only ours), just before the new run writes its own."""
    for name in RUN_FILES:
        (path / name).unlink(missing_ok=True)
    for name in RUN_DIRS:
        shutil.rmtree(path / name, ignore_errors=True)
