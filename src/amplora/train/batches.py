"""Encoded examples -> micro-batches in a deterministic order that a resumed run can re-enter at any position.

The order of epoch e is a permutation drawn from (seed, e) alone, so "micro-batch number g" names the same
batch in every run with the same seed and data: g is the data position a checkpoint stores.

Packing (optional) concatenates examples into rows of at most max_length tokens with position ids restarting
at 0 for each example; transformers then keeps the examples from attending to each other (it derives a
block-diagonal mask from the position ids when no attention mask is passed).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from amplora.train.encoding import IGNORE, Encoded


@dataclass
class Row:
    input_ids: list[int]
    labels: list[int]
    position_ids: list[int]


def make_rows(encoded: list[Encoded], max_length: int, packing: bool) -> list[Row]:
    if not packing:
        return [Row(e.input_ids, e.labels, list(range(len(e.input_ids)))) for e in encoded]
    rows, current = [], Row([], [], [])
    for e in encoded:  # greedy, in data order (the shuffle happens over rows)
        if current.input_ids and len(current.input_ids) + len(e.input_ids) > max_length:
            rows.append(current)
            current = Row([], [], [])
        current.input_ids += e.input_ids
        current.labels += e.labels
        current.position_ids += list(range(len(e.input_ids)))
    if current.input_ids:
        rows.append(current)
    return rows


class BatchPlan:
    """Micro-batch g of the run = rows[perm(seed, epoch)][i*bs:(i+1)*bs] with epoch, i = divmod(g, per_epoch)."""

    def __init__(self, rows: list[Row], batch_size: int, seed: int, pad_id: int, packing: bool, bucket: int = 1):
        self.rows, self.batch_size, self.seed, self.pad_id, self.packing = rows, batch_size, seed, pad_id, packing
        self.bucket = bucket  # widths padded up to a multiple of this (a compiled model sees fewer shapes)
        self.per_epoch = math.ceil(len(rows) / batch_size)
        self._perm_cache: dict[int, list[int]] = {}

    def _perm(self, epoch: int) -> list[int]:
        if epoch not in self._perm_cache:
            g = torch.Generator().manual_seed(self.seed * 1_000_003 + epoch)
            self._perm_cache = {epoch: torch.randperm(len(self.rows), generator=g).tolist()}
        return self._perm_cache[epoch]

    def rows_of(self, g: int) -> list[Row]:
        epoch, i = divmod(g, self.per_epoch)
        idx = self._perm(epoch)[i * self.batch_size:(i + 1) * self.batch_size]
        return [self.rows[j] for j in idx]

    def answer_tokens(self, g: int) -> int:
        # labels are shifted by one in the loss: the first token never counts
        return sum(sum(1 for t in r.labels[1:] if t != IGNORE) for r in self.rows_of(g))

    def batch(self, g: int, device) -> dict:
        return collate(self.rows_of(g), self.pad_id, self.packing, device, self.bucket)


def collate(rows: list[Row], pad_id: int, packing: bool, device, bucket: int = 1) -> dict:
    """Right-padded tensors, `bucket` dividing the width. Unpacked: an attention mask. Packed: position ids only
    (pads form their own block)."""
    width = -(-max(len(r.input_ids) for r in rows) // bucket) * bucket
    ids, labels, mask, pos = [], [], [], []
    for r in rows:
        pad = width - len(r.input_ids)
        ids.append(r.input_ids + [pad_id] * pad)
        labels.append(r.labels + [IGNORE] * pad)
        mask.append([1] * len(r.input_ids) + [0] * pad)
        pos.append(r.position_ids + list(range(pad)))
    batch = {"input_ids": torch.tensor(ids, device=device), "labels": torch.tensor(labels, device=device)}
    if packing:
        batch["position_ids"] = torch.tensor(pos, device=device)
        batch["attention_mask"] = None
    else:
        batch["attention_mask"] = torch.tensor(mask, device=device)
    batch["tokens"] = sum(len(r.input_ids) for r in rows)
    return batch
