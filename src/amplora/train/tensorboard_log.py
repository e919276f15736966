"""OUTPUT/tensorboard/: the metrics.jsonl records as TensorBoard scalars, when tensorboard is installed.

    pip install 'amplora[tensorboard]'
    tensorboard --logdir OUTPUT/tensorboard

An optional extra: without it the run writes no event files and says so once. MetricsLog hands every record it
writes here, so the two logs hold the same numbers.
"""
from __future__ import annotations

from pathlib import Path

TAGS_TRAIN = {"loss": "train/loss", "lr": "train/lr", "grad_norm": "train/grad_norm",
              "tokens_per_s": "train/tokens_per_s", "loss_scale": "train/loss_scale"}
# memory in GiB: TensorBoard's axis labels do not abbreviate bytes
TAGS_MEMORY = {"mem_current_bytes": "memory/current_GiB", "mem_peak_bytes": "memory/peak_GiB",
               "mem_reserved_bytes": "memory/reserved_GiB"}
MISSING = "TensorBoard is not installed: no event files written (pip install 'amplora[tensorboard]' adds them)"


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class TensorBoardLog:
    """write(record) for each metrics.jsonl record; close() at the end. `available` is False (and every call a
    no-op) when tensorboard cannot be imported or this rank does not write."""

    def __init__(self, log_dir: Path, enabled: bool = True, purge_step: int | None = None, note=print):
        self.writer = None
        if not enabled:
            return
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:  # torch raises this when the tensorboard package is missing
            note(MISSING)
            return
        # purge_step: a resumed run logs again from its checkpoint on; TensorBoard hides the killed run's events
        # from that step on, as metrics.jsonl drops them
        self.writer = SummaryWriter(str(log_dir), purge_step=purge_step)

    @property
    def available(self) -> bool:
        return self.writer is not None

    def write(self, record: dict) -> None:
        if self.writer is None:
            return
        kind, step = record.get("kind"), record.get("step", 0)
        scalars = {}
        if kind == "train":
            scalars |= {tag: record.get(key) for key, tag in TAGS_TRAIN.items()}
        if kind in ("train", "before", "after"):
            scalars |= {tag: record[key] / 2**30 for key, tag in TAGS_MEMORY.items() if _number(record.get(key))}
        if kind in ("before", "eval", "after"):
            scalars["eval/loss"] = record.get("eval_loss")
        if kind in ("before", "after"):  # two points, at step 0 and at the last step: the held-out score moved
            scalars["score/exact_match"] = record.get("exact_match")
            scalars |= {f"score/field_{name}": v for name, v in (record.get("fields") or {}).items()}
        for tag, value in scalars.items():
            if _number(value):
                self.writer.add_scalar(tag, value, step)
        self.writer.flush()  # as metrics.jsonl: a killed run keeps what it logged

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
