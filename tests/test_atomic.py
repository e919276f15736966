"""amplora.atomic: a directory replaces its destination whole or not at all, with the umask's modes."""
from __future__ import annotations

import os

import pytest

from amplora import atomic


def test_atomic_directory_replaces_or_vanishes(tmp_path):
    dest = tmp_path / "d"
    with atomic.directory(dest) as tmp:
        (tmp / "a").write_text("1")
    with pytest.raises(RuntimeError):
        with atomic.directory(dest) as tmp:
            (tmp / "a").write_text("2")
            raise RuntimeError("killed halfway")
    assert (dest / "a").read_text() == "1" and [p.name for p in tmp_path.iterdir()] == ["d"]


def test_atomic_directory_gives_files_the_umask_modes(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic.directory(tmp_path / "ckpt") as tmp:
            fd = os.open(tmp / "weights", os.O_WRONLY | os.O_CREAT, 0o600)  # as safetensors makes its files
            os.close(fd)
    finally:
        os.umask(old)
    assert (tmp_path / "ckpt" / "weights").stat().st_mode & 0o777 == 0o644
