"""What the doctor records at the moment of a fault: the failing op, its operands, and facts read off the stack.

Nothing here runs unless something failed, so it may be slow-ish (it walks frames and reads their locals).
"""
from __future__ import annotations

import functools
import linecache
import os
import re
import sys
import types
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes

_CALL_IMPL = nn.Module._call_impl.__code__
_TORCH_DIR = os.path.dirname(torch.__file__)
_DOCTOR_DIR = os.path.dirname(__file__)
# frames from these packages are "library" frames; the first other frame is where the user's code is
_LIBRARY_MARKERS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep, _TORCH_DIR, _DOCTOR_DIR,
                    "<frozen ", os.sep + "lib" + os.sep + "python3")


@dataclass
class FrameFacts:
    """What the Python stack says about where a fault happened (innermost first)."""

    modules: list[nn.Module] = field(default_factory=list)   # modules whose forward is running, innermost first
    module_inputs: list = field(default_factory=list)        # tensors passed to the innermost module's call
    root_inputs: list = field(default_factory=list)          # tensors passed to the outermost module's call
    in_generate: bool = False
    in_optimizer: bool = False
    in_scaler: bool = False
    in_backward_call: bool = False       # inside loss.backward() / torch.autograd.backward / .grad
    backward_function: str = ""          # custom autograd.Function whose backward is running
    optimizer: object = None             # an optimizer found in the frames (for scaler / optimizer faults)
    method_owner: nn.Module | None = None  # innermost module whose (non-forward) method is running, e.g. an init
    init_like: bool = False              # an __init__ / *init* / reset_parameters frame is on the stack
    where: str = ""                      # innermost frame of user code: file:line in function
    code: str = ""                       # ... and its source line
    keys: str = ""                       # ... and the keys its subscripts use: "k = 'bn1.num_batches_tracked'"
    made: str = ""                       # ... and where the names it reads were made: "p = probs.prod(-1), line 38"
    cast: tuple = ()                     # a parameter or buffer `.half()` / `.to()` is casting: ("buffer", "norm.mean")
    cast_entry: str = ""                 # ... or the key of a state-dict entry a comprehension casts: "y_var"

    @property
    def line(self) -> str:
        """`where` with its source line: "train.py:12 in step: `loss = model(x)`" ('' when unknown)."""
        return f"{self.where}: `{self.code}`" if self.where and self.code else self.where

    @property
    def located(self) -> str:
        """`line` with the keys it subscripts with and where the tensors it reads were made."""
        said = "; ".join(s for s in (self.keys, self.made) if s) if self.code else ""
        return self.line + (f" ({said})" if said else "")


def _subscript_keys(code: str, f_locals) -> str:
    """The values of the variables a line subscripts with (`soup[k]`, `state[name]`): which entry of a dict or list
    failed is often the whole story (a BatchNorm counter among the weights)."""
    found = []
    for name in dict.fromkeys(re.findall(r"[\w)\]]\[\s*([A-Za-z_]\w*)\s*\]", code)):
        value = f_locals.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            found.append(f"{name} = {value!r}"[:120])
    return ", ".join(found[:2])


def _cast_entry(code: str, f_locals) -> str:
    """The key of the entry a line casts while it walks a dict's items (`{k: v.half() for k, v in sd.items()}`): an
    export that casts a whole state dict casts its statistics buffers too."""
    m = re.search(r"\bfor\s+(\w+)\s*,\s*(\w+)\s+in\b[^\n]*\.items\(\)", code)
    if m is None or not re.search(rf"\b{m.group(2)}\.(half|bfloat16|to)\(", code):
        return ""
    key, value = f_locals.get(m.group(1)), f_locals.get(m.group(2))
    return key if isinstance(key, str) and isinstance(value, torch.Tensor) else ""


_NOT_NAMES = frozenset("and or not in is if else for lambda None True False return self torch nn F np".split())


def _made_by(code: str, filename: str, first: int, line: int, f_locals) -> str:
    """The calls that last assigned the tensors the failing line reads, earlier in its function: the op that made a
    zero, an inf or a float64 (`p = probs.prod(-1)`) often stands a line or two above the one that failed."""
    read = re.sub(r"^\s*(return\b|[\w., ]+?\s*[-+*/]?=(?!=))", "", code)  # what the line reads, not what it assigns
    names = [n for n in dict.fromkeys(re.findall(r"(?<![\w.])([A-Za-z_]\w*)\b(?!\s*[(=])", read))
             if n not in _NOT_NAMES and isinstance(f_locals.get(n), torch.Tensor)]
    names.sort(key=lambda n: not f_locals[n].is_floating_point())  # values before the indices that place them
    found = []
    for name in names:
        assigned = re.compile(rf"^\s*(?:\w+\s*,\s*)*{name}\s*(?:,\s*\w+\s*)*=(?!=)\s*(.+)$")
        made = _last_assignment(assigned, filename, line, max(first, line - 40))
        if made and "(" in made[1]:  # a call made it, not a constant or a copy
            found.append(f"{name} = {made[1].strip()[:80]}, line {made[0]}")
    return "; ".join(found[:2])


def _last_assignment(assigned: re.Pattern, filename: str, line: int, stop: int) -> tuple[int, str] | None:
    """The nearest line above `line` (down to `stop`) that `assigned` matches: (its number, the value assigned)."""
    for n in range(line - 1, stop - 1, -1):
        m = assigned.match(linecache.getline(filename, n))
        if m:
            return n, m.group(1)
    return None


def _is_library(filename: str) -> bool:
    return any(marker in filename for marker in _LIBRARY_MARKERS)


def scan_frames(frames) -> FrameFacts:
    """Read FrameFacts off frames given innermost first."""
    facts = FrameFacts()
    for frame in frames:
        code = frame.f_code
        name, filename = code.co_name, code.co_filename
        if code is _CALL_IMPL:
            f_locals = frame.f_locals
            mod = f_locals.get("self")
            if isinstance(mod, nn.Module) and (not facts.modules or facts.modules[-1] is not mod):
                values = list(f_locals.get("args", ())) + list((f_locals.get("kwargs") or {}).values())
                facts.root_inputs = [v for v in values if isinstance(v, torch.Tensor)][:8]
                if not facts.modules:
                    facts.module_inputs = facts.root_inputs
                facts.modules.append(mod)
            continue
        if not facts.where and not _is_library(filename):
            facts.where = f"{filename}:{frame.f_lineno} in {name}"
            facts.code = linecache.getline(filename, frame.f_lineno).strip()
            facts.keys = _subscript_keys(facts.code, frame.f_locals)
            facts.made = _made_by(facts.code, filename, code.co_firstlineno, frame.f_lineno, frame.f_locals)
            facts.cast_entry = _cast_entry(facts.code, frame.f_locals)
        f_locals = frame.f_locals
        owner = f_locals.get("self")
        if name == "generate" and isinstance(owner, nn.Module):
            facts.in_generate = True
        if "grad_scaler" in filename or (owner is not None and type(owner).__name__ == "GradScaler"):
            facts.in_scaler = True
        if os.sep + "optim" + os.sep in filename or isinstance(owner, torch.optim.Optimizer):
            facts.in_optimizer = True
        if facts.optimizer is None:
            cand = f_locals.get("optimizer", owner)
            if isinstance(cand, torch.optim.Optimizer) or hasattr(cand, "param_groups"):
                facts.optimizer = cand
        if name == "_engine_run_backward" or (name in ("backward", "grad") and filename.startswith(_TORCH_DIR)):
            facts.in_backward_call = True
        if name == "backward" and not facts.backward_function:
            ctx = f_locals.get("ctx")
            fwd = getattr(ctx, "_forward_cls", None)
            if fwd is not None:
                facts.backward_function = fwd.__name__
        if isinstance(owner, nn.Module) and name not in ("forward", "scoped_forward", "_call_impl", "_wrapped_call_impl",
                                                     "inner"):
            if facts.method_owner is None and not facts.modules:
                facts.method_owner = owner
        if name == "_apply" and isinstance(owner, nn.Module) and filename.startswith(_TORCH_DIR):
            facts.cast = _cast_path(facts.cast, owner, f_locals)
        if "init" in name.lower() or name == "reset_parameters":
            facts.init_like = True
    return facts


def _cast_path(cast: tuple, owner: nn.Module, f_locals: dict) -> tuple:
    """Module._apply frames, innermost first: the innermost casts `key` of its own parameters or buffers, each
    enclosing one is recursing into its child `module`, whose name it prefixes."""
    key = f_locals.get("key")
    if not cast and isinstance(key, str) and (key in owner._buffers or key in owner._parameters):
        return ("buffer" if key in owner._buffers else "parameter", key)
    child = f_locals.get("module")
    name = next((n for n, m in owner._modules.items() if m is child), None) if cast else None
    return (cast[0], f"{name}.{cast[1]}") if name else cast


def live_frames(start: types.FrameType | None):
    frame = start
    while frame is not None:
        yield frame
        frame = frame.f_back


def stale_nonfinite(frames, before: int = 15) -> tuple[str, torch.Tensor, str] | None:
    """In the innermost frame of user code: a floating tensor, not a trainable one, that the lines just above the
    current one read and that already holds inf/NaN (weights or statistics made before the step), with the call
    that last assigned it: (name, tensor, "w = make(counts), line 41" or "")."""
    frame = next((f for f in frames if not _is_library(f.f_code.co_filename)), None)
    if frame is None:
        return None
    filename, line = frame.f_code.co_filename, frame.f_lineno
    near = "\n".join(linecache.getline(filename, n) for n in range(max(1, line - before), line + 1))
    for name, value in list(frame.f_locals.items()):
        if (name.startswith("_") or not isinstance(value, torch.Tensor) or not value.is_floating_point()
                or value.requires_grad or not value.numel()
                or not re.search(rf"(?<![\w.]){name}\b(?!\s*=[^=])", near)):  # read near here, not only assigned
            continue
        try:
            if bool(torch.isfinite(value).all()):
                continue
        except Exception:
            continue
        made = _last_assignment(re.compile(rf"^\s*{name}\s*=(?!=)\s*(.+)$"), filename, line, 1)
        return name, value, f"{name} = {made[1].strip()[:80]}, line {made[0]}" if made else ""
    return None


def traceback_frames(exc: BaseException):
    """Frames of an exception's traceback, innermost first (where it was raised -> where it was caught)."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return list(reversed(frames))


def autocast_state() -> dict[str, torch.dtype]:
    """Device types with an active autocast region, and its dtype."""
    state = {}
    for dev in ("cpu", "cuda", "mps", "xpu"):
        try:
            if torch.is_autocast_enabled(dev):
                state[dev] = torch.get_autocast_dtype(dev)
        except (RuntimeError, AttributeError, ValueError):  # a device type this torch does not know
            pass
    return state


@dataclass
class Capture:
    """The failing aten op as the dispatch mode saw it."""

    op: str
    operands: list[tuple[str, torch.Tensor]]
    facts: FrameFacts
    autocast: dict
    grad_enabled: bool
    node_name: str = ""
    node_seq: int = -1


def _operands(func, args, kwargs) -> list[tuple[str, torch.Tensor]]:
    try:
        names = [a.name for a in func._schema.arguments]
    except AttributeError:
        names = []
    found: list[tuple[str, torch.Tensor]] = []

    def add(role, value):
        if isinstance(value, torch.Tensor):
            found.append((role, value))
        elif isinstance(value, (list, tuple)):  # a foreach op's lists: a few of each, and the first odd one
            items = [(i, v) for i, v in enumerate(value) if isinstance(v, torch.Tensor)]
            kept = items[:_PER_LIST]
            odd = next(((i, v) for i, v in items[_PER_LIST:]
                        if (v.dtype, v.device) != (items[0][1].dtype, items[0][1].device)), None)
            found.extend((f"{role}[{i}]", v) for i, v in kept + ([odd] if odd else []))

    for i, value in enumerate(args):
        add(names[i] if i < len(names) else f"arg{i}", value)
    for key, value in (kwargs or {}).items():
        add(key, value)
    return found[:12]


_PER_LIST = 4


def capture_op(func, args, kwargs) -> Capture:
    """Called from the dispatch mode's except branch, while the failing op's context is still live."""
    node = torch._C._current_autograd_node()
    facts = scan_frames(live_frames(sys._getframe(2)))  # 0: here, 1: the dispatch mode
    return Capture(op=str(func), operands=_operands(func, args, kwargs), facts=facts, autocast=autocast_state(),
                   grad_enabled=torch.is_grad_enabled(),
                   node_name=node.name() if node is not None else "",
                   node_seq=node._sequence_nr() if node is not None else -1)


def find_capture(exc: BaseException) -> tuple[Capture | None, BaseException]:
    """The capture attached to `exc` or to an exception it chains from, and the exception that carried it."""
    seen = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        cap = getattr(cur, "_amplora_capture", None)
        if cap is not None:
            return cap, cur
        cur = cur.__cause__ or cur.__context__
    return None, exc


def _unwatched(trace):
    """`torch.jit.trace` run without dispatch modes: its check re-runs the graph, which fails when any mode is active
    (a Python scalar reaches an op as if it were a tensor)."""
    @functools.wraps(trace)
    def call(*args, **kwargs):
        with _disable_current_modes():
            return trace(*args, **kwargs)
    return call


class WatchingMode(TorchDispatchMode):
    """A dispatch mode that leaves the program's behaviour as it was. nn's fused fast path (TransformerEncoderLayer
    and MultiheadAttention in eval) runs its inner ops without autocast when a dispatch mode is active, so it would
    fail where the unwatched program runs: it is turned off while the mode is on; and `torch.jit.trace` records
    without the mode (the traced graph still runs under it)."""

    def __enter__(self):
        self._fastpath = torch.backends.mha.get_fastpath_enabled()
        torch.backends.mha.set_fastpath_enabled(False)
        self._traces = torch.jit.trace, torch.jit.trace_module
        torch.jit.trace, torch.jit.trace_module = map(_unwatched, self._traces)
        return super().__enter__()

    def __exit__(self, *exc):
        try:
            return super().__exit__(*exc)
        finally:
            torch.backends.mha.set_fastpath_enabled(self._fastpath)
            torch.jit.trace, torch.jit.trace_module = self._traces
