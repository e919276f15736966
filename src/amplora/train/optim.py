"""AdamW on the fp32 adapter parameters, linear warmup then cosine decay to zero."""
from __future__ import annotations

import math

import torch

from amplora.adapters import track_optimizer


def build_optimizer(params: list[torch.nn.Parameter], lr: float, weight_decay: float,
                    model: torch.nn.Module | None = None) -> torch.optim.AdamW:
    """The optimizer; with `model`, tracked by its adapters (amplora.track_optimizer), so that what they keep per
    state of their weights lives until its next step (the micro-batches of a step share DoRA's terms)."""
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    if model is not None:
        track_optimizer(optimizer, model)
    return optimizer


def warmup_cosine(total_steps: int, warmup_ratio: float):
    warmup = max(1, round(total_steps * warmup_ratio)) if warmup_ratio > 0 else 0

    def factor(step: int) -> float:  # step = optimizer steps taken so far
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total_steps - warmup)
        return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))

    return factor


def build_scheduler(optimizer, total_steps: int, warmup_ratio: float) -> torch.optim.lr_scheduler.LambdaLR:
    return torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine(total_steps, warmup_ratio))
