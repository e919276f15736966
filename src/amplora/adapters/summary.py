"""`trainable_summary`: what an adapted model trains, in one or two lines."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import torch.nn as nn

from amplora.adapters import quant
from amplora.adapters.apply import lora_layers


@dataclass(frozen=True)
class TrainableSummary:
    trainable: int  # parameters with requires_grad
    total: int  # all parameters, an NF4 weight counted as the dense weight it stands for
    modules: tuple[str, ...]  # qualified names of the adapted modules

    @property
    def percent(self) -> float:
        return 100.0 * self.trainable / self.total if self.total else 0.0

    def by_leaf(self) -> dict[str, int]:
        """Adapted modules per leaf name (`q_proj`: how many), in model order: the short form of `modules`."""
        return dict(Counter(name.rsplit(".", 1)[-1] for name in self.modules))

    def __str__(self) -> str:
        line = (f"trainable params: {self.trainable:,} || all params: {self.total:,} || "
                f"trainable%: {self.percent:.4f}")
        if not self.modules:
            return line
        leaves = ", ".join(f"{leaf} x{n}" for leaf, n in self.by_leaf().items())
        return f"{line}\nadapted modules: {len(self.modules)} ({leaves})"


def _numel(p) -> int:
    """Packed NF4 storage holds two weights a byte: count the weight's own shape, as PEFT does."""
    state = getattr(p, "quant_state", None) if quant.is_nf4_weight(p) else None
    return state.shape.numel() if state is not None else p.numel()


def trainable_summary(model: nn.Module) -> TrainableSummary:
    """Trainable and total parameter counts (shared parameters counted once) and the adapted modules; `str()` of
    it is PEFT's `print_trainable_parameters` line plus the modules grouped by leaf name."""
    params = list(model.parameters())
    return TrainableSummary(trainable=sum(_numel(p) for p in params if p.requires_grad),
                            total=sum(_numel(p) for p in params), modules=tuple(lora_layers(model)))
