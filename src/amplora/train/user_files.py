"""Reading a file the user named (data, config): regular files only, and never more than a fixed size.

A FIFO, a device (/dev/zero, /dev/stdin on a terminal) or a directory is refused before anything is read: a FIFO
without a writer would block forever and /dev/zero would fill memory. The file is opened non-blocking and its
type checked on the open descriptor, so a name swapped for a FIFO between a check and the open cannot hang.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from amplora.errors import AmploraError

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: str | Path, what: str, limit: int) -> bytes:
    """The contents of regular file `path`, at most `limit` bytes; anything else is a one-line AmploraError
    that starts with `what` (e.g. "data file")."""
    path = Path(path)
    fd = _open_checked(path, what)
    try:
        _refuse_irregular(os.fstat(fd).st_mode, path, what)
        chunks, size = [], 0
        while True:  # st_size is not trusted: /proc files say 0, and a file may grow while it is read
            chunk = os.read(fd, min(1 << 24, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise AmploraError(f"{what} {path} is larger than {_human(limit)}, the most amplora reads")
    except OSError as e:
        raise AmploraError(f"cannot read {what} {path}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def _human(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} bytes"


def _open_checked(path: Path, what: str) -> int:
    """A non-blocking descriptor of `path` (a FIFO without a writer does not hang the open), or the error."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        raise AmploraError(f"{what} {path} not found") from None
    except IsADirectoryError:
        raise AmploraError(f"{what} {path} is a directory, expected a file") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the name
        raise AmploraError(f"cannot read {what} {path}: {getattr(e, 'strerror', None) or e}") from None


def _refuse_irregular(mode: int, path: Path, what: str) -> None:
    if not stat.S_ISREG(mode):
        hint = "" if stat.S_ISDIR(mode) else " (write its contents to a file first)"
        raise AmploraError(f"{what} {path} is {_kind(mode)}, expected a regular file{hint}")


def regular_file(path: str | Path, what: str, limit: int) -> int:
    """Check that `path` is a regular file of at most `limit` bytes, for readers that open it themselves
    (pyarrow through `datasets`); its size. The same refusals as read_bytes, without reading it."""
    path = Path(path)
    fd = _open_checked(path, what)
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    _refuse_irregular(st.st_mode, path, what)
    if st.st_size > limit:
        raise AmploraError(f"{what} {path} is larger than {_human(limit)}, the most amplora reads")
    return st.st_size


def regular_tree(path: str | Path, what: str, limit: int) -> None:
    """A directory whose every entry, at any depth, is a directory or a regular file, `limit` bytes in all
    (a save_to_disk dataset): a FIFO or a device inside would hang or flood the reader."""
    total = 0
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            entry = Path(root) / name
            try:
                st = entry.stat()
            except OSError as e:
                raise AmploraError(f"cannot read {what} {path}: {entry}: {e.strerror or e}") from None
            if stat.S_ISDIR(st.st_mode):
                continue
            if not stat.S_ISREG(st.st_mode):
                raise AmploraError(f"{what} {path} holds {entry}, which is {_kind(st.st_mode)}; expected regular "
                                   f"files")
            total += st.st_size
    if total > limit:
        raise AmploraError(f"{what} {path} is larger than {_human(limit)}, the most amplora reads")
