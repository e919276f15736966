"""The Scene: everything the doctor's rules (rules.py) may look at, built by diagnose.py from a failed op."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

from amplora.doctor import kb
from amplora.doctor.capture import Capture, FrameFacts
from amplora.doctor.fault import Operand
from amplora.doctor.naming import Namer


@dataclass
class Scene:
    """Everything the rules may look at."""

    exc: BaseException
    message: str
    entry: kb.Entry
    facts: FrameFacts
    phase: str
    namer: Namer
    recorder: object = None
    cap: Capture | None = None
    module: nn.Module | None = None
    module_path: str | None = None
    tensors: list[tuple[str, torch.Tensor]] = field(default_factory=list)
    operands: list[Operand] = field(default_factory=list)
    producers: dict = field(default_factory=dict)    # operand index -> producing module
    params: dict = field(default_factory=dict)       # operand index -> parameter name
    buffers: dict = field(default_factory=dict)      # operand index -> buffer name

    @property
    def autocast(self) -> dict:
        return self.cap.autocast if self.cap else {}

    @property
    def op(self) -> str | None:
        return self.cap.op if self.cap else None
