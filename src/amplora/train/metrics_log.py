"""metrics.jsonl: the run's log, one JSON record per line, readable after a kill and trimmed on resume."""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from amplora import atomic


def read_metrics(path: Path) -> list[dict]:
    """The records of a metrics.jsonl, up to a line cut short by a kill (it and anything after are not trusted)."""
    out = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return out


def truncate_metrics(path: Path, step: int) -> None:
    """Resume: drop what a killed run logged after its last checkpoint; the resumed run logs it again."""
    kept = [r for r in read_metrics(path) if r.get("step", 0) <= step and r.get("kind") != "after"]
    atomic.write_text(path, "".join(json.dumps(r) + "\n" for r in kept))


class MetricsLog:
    """metrics.jsonl: one JSON object per line, flushed per record (a killed run keeps what it logged). Every
    record also goes to `tensorboard` (a tensorboard_log.TensorBoardLog) when one is given."""

    def __init__(self, path: Path, enabled: bool = True, tensorboard=None):
        self.path, self.enabled = path, enabled  # distributed: rank 0 writes, the others only compute
        self.tensorboard = tensorboard

    def write(self, record: dict) -> None:
        if not self.enabled:
            return
        line = (json.dumps(record) + "\n").encode("utf-8")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)  # umask applies
        except OSError as e:
            raise atomic.write_error(self.path, e) from None
        try:
            start = os.lseek(fd, 0, os.SEEK_END)
            try:
                view = memoryview(line)
                while view:  # os.write may write less than asked (a file size limit, a signal)
                    view = view[os.write(fd, view):]
            except OSError as e:
                # take back the part of the line that got written: the log stays whole lines (truncating frees
                # space, so this works on a full disk too); a new file left empty goes altogether
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, start)
                    if start == 0:
                        os.unlink(self.path)
                raise atomic.write_error(self.path, e) from None
        finally:
            os.close(fd)
        if self.tensorboard is not None:
            self.tensorboard.write(record)

    def close(self) -> None:
        if self.tensorboard is not None:
            self.tensorboard.close()

    def read(self) -> list[dict]:
        return read_metrics(self.path)
