"""Atomic writes: build a file or directory next to its destination, then rename it into place.

A reader (or a resumed run after SIGKILL) sees either the old complete thing or the new complete thing, never a
half-written one. A write that fails (disk full, quota, read-only filesystem, I/O error) is a one-line AmploraError
naming the destination, and leaves no temporary file behind.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path

from amplora.errors import AmploraError


_NEARLY_FULL = 16 << 20  # bytes free below which a short write is taken for a full filesystem


class WriteFailed(AmploraError):
    """A failed write naming its destination; an enclosing `directory` names its own instead of a temporary path."""

    def __init__(self, path, reason: str | None):
        self.reason = reason
        super().__init__(f"cannot write {path}: {reason}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def follow_umask(root: str | os.PathLike) -> None:
    """Give `root` and everything under it the permissions a plain `open()`/`mkdir` would have: safetensors (and
    so save_pretrained) writes 0600 files via a private temp file, mkdtemp makes 0700 directories."""
    mask = _umask()
    root = Path(root)
    os.chmod(root, 0o777 & ~mask)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o777 & ~mask)
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, 0o666 & ~mask)


def write_failure(e: BaseException, where: Path | None = None) -> str | None:
    """Why a write failed, in a few words, if `e` is a failed write (to a file under `where`); None for any other
    error.

    torch.save and safetensors do not raise OSError: torch reports a short write of its zip writer without the
    errno (a nearly full filesystem under `where` tells it was ENOSPC), safetensors wraps the OS error in its own
    exception type."""
    if isinstance(e, AmploraError):
        return None
    if isinstance(e, OSError):
        return e.strerror or str(e) or type(e).__name__
    text = str(e)
    if type(e).__name__ == "SafetensorError" and "I/O error: " in text:
        return text.split("I/O error: ", 1)[1].split(" (os error")[0]
    if isinstance(e, RuntimeError) and ("PytorchStreamWriter" in text or "inline_container" in text):
        with contextlib.suppress(OSError):
            fs = os.statvfs(where) if where is not None else None
            if fs is not None and fs.f_bavail * fs.f_frsize < _NEARLY_FULL:
                return os.strerror(errno.ENOSPC)
        return "the write was cut short (no space left on the device, or a file size limit)"
    return None


def write_error(path, e: BaseException, where: Path | None = None) -> WriteFailed:
    return WriteFailed(path, write_failure(e, where))


def write_text(path: str | os.PathLike, text: str) -> None:
    path = Path(path)
    try:
        _write_text(path, text)
    except OSError as e:
        raise write_error(path, e) from None


def _write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json(path: str | os.PathLike, obj) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=False) + "\n")


@contextlib.contextmanager
def directory(path: str | os.PathLike):
    """`with directory(dest) as tmp:` fill `tmp`; on success it replaces `dest` (old one removed), else vanishes."""
    dest = Path(path)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp"))
    except OSError as e:
        raise write_error(dest, e) from None
    try:
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700; give the directory the usual permissions
        yield tmp
        follow_umask(tmp)  # files the body made (safetensors writes 0600) get the umask's modes
        if dest.exists():
            # rename the old one aside first so that `dest` is never missing a complete version for long
            old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
            os.rename(dest, old)
            os.rename(tmp, dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, dest)
    except BaseException as e:
        reason = e.reason if isinstance(e, WriteFailed) else write_failure(e, tmp)  # before the cleanup frees space
        shutil.rmtree(tmp, ignore_errors=True)
        if reason is None:
            raise
        raise WriteFailed(dest, reason) from None
