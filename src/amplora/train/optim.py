"""AdamW on the fp32 adapter parameters, linear warmup then cosine decay to zero."""
from __future__ import annotations

import math

import torch


def build_optimizer(params: list[torch.nn.Parameter], lr: float, weight_decay: float) -> torch.optim.AdamW:
    return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)


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
