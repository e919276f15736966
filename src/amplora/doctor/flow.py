"""`--report`: a per-module dtype-flow table (input, parameter, output dtypes), with suspicious mixes flagged.

Only two mixes are flagged, and only outside autocast (inside it, mixed dtypes are autocast doing its job):
- a module with matrix weights (Linear, Conv, ...) receiving activations of another dtype than its weights;
- a module returning a float dtype it was not given (e.g. an fp32 norm turning bf16 activations into fp32,
  which the next bf16 layer cannot take: the S001 precursor).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

from amplora.doctor.naming import Namer
from amplora.precision import dtype_name


def _float_dtypes(value, depth: int = 0) -> tuple:
    if isinstance(value, torch.Tensor):
        return (value.dtype,) if value.is_floating_point() else ()
    if depth == 0 and isinstance(value, (tuple, list)):
        return tuple(d for v in value[:8] for d in _float_dtypes(v, 1))
    return ()


def _device_type(value) -> str:
    if isinstance(value, torch.Tensor):
        return value.device.type
    if isinstance(value, (tuple, list)):
        for v in value[:8]:
            if isinstance(v, torch.Tensor):
                return v.device.type
    return "cpu"


def _names(dtypes) -> str:
    return ", ".join(sorted({dtype_name(d) for d in dtypes})) or "-"


@dataclass
class FlowRow:
    module: nn.Module
    order: int
    calls: int = 0
    inputs: set = field(default_factory=set)
    outputs: set = field(default_factory=set)
    autocast: set = field(default_factory=set)
    warnings: list = field(default_factory=list)
    matrix_weights: tuple = ()
    params: str = "-"


class FlowRecorder:
    def __init__(self):
        self.rows: dict[int, FlowRow] = {}
        self.stack: list = []
        self._handles: list = []

    def install(self) -> None:
        self._handles = [register_module_forward_pre_hook(self._pre),
                         register_module_forward_hook(self._post, always_call=True)]

    def remove(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles = []

    def _row(self, module: nn.Module) -> FlowRow:
        row = self.rows.get(id(module))
        if row is None:
            direct = [p for p in module.parameters(recurse=False) if p.is_floating_point()]
            row = FlowRow(module, len(self.rows), params=_names(p.dtype for p in direct),
                          matrix_weights=tuple({p.dtype for p in direct if p.dim() >= 2}))
            self.rows[id(module)] = row
        return row

    def _pre(self, module, args):
        row = self._row(module)
        ins = _float_dtypes(args)
        dev = _device_type(args)
        autocast = torch.is_autocast_enabled(dev) if dev in ("cpu", "cuda") else False
        row.inputs.update(ins)
        self.stack.append((row, ins, autocast))
        if not autocast and len(row.matrix_weights) == 1:
            for d in set(ins):
                if d != row.matrix_weights[0]:
                    self._warn(row, f"receives {dtype_name(d)} activations but its weights are "
                                    f"{dtype_name(row.matrix_weights[0])} (no autocast)")

    def _post(self, module, args, out):
        if not self.stack:
            return
        row, ins, autocast = self.stack.pop()
        row.calls += 1
        row.autocast.add(autocast)
        outs = _float_dtypes(out)
        row.outputs.update(outs)
        if not autocast and ins and outs:
            for d in set(outs) - set(ins):
                if len(set(ins)) == 1:
                    self._warn(row, f"turns {_names(ins)} activations into {dtype_name(d)} (no autocast): "
                                    f"the next {_names(ins)} layer will get {dtype_name(d)}")

    @staticmethod
    def _warn(row: FlowRow, text: str) -> None:
        if text not in row.warnings:
            row.warnings.append(text)

    def table(self, namer: Namer) -> list[dict]:
        rows = sorted(self.rows.values(), key=lambda r: r.order)
        out = []
        for r in rows:
            autocast = "mixed" if len(r.autocast) > 1 else ("yes" if True in r.autocast else "no")
            out.append({"module": namer.module_path(r.module), "type": type(r.module).__name__, "calls": r.calls,
                        "inputs": _names(r.inputs), "params": r.params, "outputs": _names(r.outputs),
                        "autocast": autocast, "warnings": list(r.warnings)})
        return out
