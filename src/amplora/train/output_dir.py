"""The run's output directory: checked and locked before any work, written only once everything has been validated.

One run per directory: the run holds an OS lock (`flock`) on OUTPUT/.amplora.lock from its first check to its
end. The kernel drops the lock when the process ends however it ends (SIGKILL included), so a dead run never
blocks the next one; the file holds the holder's pid, for the error message only.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

from amplora.errors import AmploraError

RUN_FILES = ("config.yaml", "metrics.jsonl", "report.html", "summary.json")
RUN_DIRS = ("adapter", "adapter-last-good", "checkpoints", "tensorboard")
LOCK_NAME = ".amplora.lock"
CHECKPOINT_STATE = "trainer_state.json"  # checkpoint.STATE_FILE (checkpoint imports torch; this module does not)


def default_output() -> str:
    return str(Path("runs") / time.strftime("train-%Y%m%d-%H%M%S"))


def holds_run(path: Path) -> bool:
    """Whether `path` holds something a new run must not silently replace: a finished run's outputs, an adapter or
    a complete checkpoint. A run that ended before its first checkpoint (killed, disk full) left at most
    config.yaml and part of metrics.jsonl: nothing to resume or keep, so the next run may start afresh there."""
    if any((path / name).exists() for name in ("adapter", "report.html", "summary.json")):
        return True
    ckpts = path / "checkpoints"
    return ckpts.is_dir() and any((p / CHECKPOINT_STATE).is_file() for p in ckpts.glob("step-*"))


def _make_dirs(path: Path) -> list[Path]:
    """Create `path` and its missing parents; returns those created, innermost first (for _remove_dirs)."""
    created = []
    probe = path
    while not probe.exists():
        created.append(probe)
        probe = probe.parent
    if not probe.is_dir():
        raise AmploraError(f"output directory {path} is not writable: {probe} is a file, not a directory")
    try:
        for d in reversed(created):
            d.mkdir()
    except OSError as e:
        _remove_dirs(created)
        raise AmploraError(f"output directory {path} is not writable: {e.strerror or e}") from None
    return created


def _remove_dirs(created: list[Path]) -> None:
    for d in created:  # innermost first; a directory something else was written into stays
        try:
            d.rmdir()
        except OSError:
            pass


def holder_pid(path: Path) -> str:
    try:
        return (path / LOCK_NAME).read_text().strip() or "unknown"
    except OSError:
        return "unknown"


def _in_use(path: Path) -> AmploraError:
    return AmploraError(f"output directory {path} is in use by another run (pid {holder_pid(path)}); "
                        f"wait for it to end or use another --output")


def _try_flock(fd: int) -> bool:
    # a few tries: refuse_if_in_use's probes hold a shared lock for an instant; a run holds its lock for good
    for _ in range(5):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            time.sleep(0.05)
    return False


class RunLock:
    """The exclusive lock of one run on its output directory; release() (or the process ending) frees it."""

    def __init__(self, path: Path, created: list[Path]):
        self.path, self.created, self.fd = path, created, None
        lock = path / LOCK_NAME
        while True:
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)  # mode: the user's umask applies
            except OSError as e:
                self._undo()
                raise AmploraError(f"output directory {path} is not writable: {e.strerror or e}") from None
            if not _try_flock(fd):
                os.close(fd)
                self._undo()
                raise _in_use(path) from None
            # the holder before us may have unlinked the file between our open and our flock: then we hold a lock
            # on a file nobody else can see, and must lock the one at the path instead
            try:
                same = os.stat(lock).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self.fd = fd
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as e:
            self.release()
            raise AmploraError(f"cannot write {lock}: {e.strerror or e}") from None

    def _undo(self) -> None:
        _remove_dirs(self.created)

    def release(self) -> None:
        """Free the directory: the lock file goes (while still locked, see above), then directories created only
        for it (a run that failed before writing anything leaves no directory that looks used)."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path / LOCK_NAME)
        os.close(self.fd)
        self.fd = None
        self._undo()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def _probe_writable(path: Path) -> None:
    """An existing lock file proves nothing about creating files: make and remove one."""
    try:
        fd, name = tempfile.mkstemp(dir=path, prefix=".amplora-probe-")
        os.close(fd)
        os.unlink(name)
    except OSError as e:
        raise AmploraError(f"output directory {path} is not writable: {e.strerror or e}") from None


def claim(path: Path, resuming: bool, overwrite: bool) -> RunLock:
    """Lock `path` for this run (creating it if needed) after checking that the run may write there."""
    if path.exists() and not path.is_dir():
        raise AmploraError(f"output directory {path} is not writable: it is a file")
    lock = RunLock(path, _make_dirs(path))
    try:
        if not resuming and holds_run(path) and not overwrite:
            raise AmploraError(f"output directory {path} already holds a run; use --resume {path} to continue it, "
                               f"--overwrite to replace it, or another --output")
        _probe_writable(path)
    except BaseException:
        lock.release()
        raise
    return lock


def refuse_if_in_use(path: Path, rank: int = 0) -> None:
    """--resume PATH (a run directory or one of its checkpoints): refuse before reading its checkpoint while another
    run holds the directory. A shared-lock probe, released at once. Only rank 0 probes: it alone takes the run's
    lock, so under torchrun the other ranks could find their own rank 0's lock already there."""
    if rank != 0:
        return
    path = Path(path).expanduser()
    for run_dir in (path, path.parent.parent):
        lock = run_dir / LOCK_NAME
        try:
            fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _in_use(run_dir) from None
        finally:
            os.close(fd)


def clear_previous_run(path: Path) -> None:
    """A new run (not resuming): remove the previous run's files (only ours), just before it writes its own."""
    for name in RUN_FILES:
        try:
            (path / name).unlink(missing_ok=True)
        except OSError as e:
            raise AmploraError(f"cannot remove {path / name}: {e.strerror or e}") from None
    for name in RUN_DIRS:
        shutil.rmtree(path / name, ignore_errors=True)
