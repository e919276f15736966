"""The rich progress bar (step, loss, tokens/s, memory, ETA) and the log lines printed above it."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from amplora.train import memory_meter


def make_console(quiet: bool = False) -> Console:
    return Console(stderr=False, quiet=quiet, highlight=False, soft_wrap=True, file=sys.stdout)


class TrainProgress:
    def __init__(self, console: Console, total_steps: int, start_step: int):
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]train"), BarColumn(), MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]}"), TextColumn("{task.fields[tps]} tok/s"),
            TextColumn("{task.fields[mem]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=console, transient=False, auto_refresh=console.is_terminal,
        )
        self.task = self.progress.add_task("train", total=total_steps, completed=start_step, loss="-", tps="-",
                                       mem="")

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()

    def update(self, step: int, loss: float | None = None, tokens_per_s: float | None = None,
               memory: dict | None = None) -> None:
        """memory: MemoryMeter.now()'s reading, plus "ranks_peak" under torchrun."""
        fields = {}
        if loss is not None:
            fields["loss"] = f"{loss:.4f}"
        if tokens_per_s is not None:
            fields["tps"] = f"{tokens_per_s:.0f}"
        if memory is not None:
            fields["mem"] = memory_meter.line(memory)
        self.progress.update(self.task, completed=step, **fields)

    def log(self, text: str) -> None:
        self.console.print(text)
