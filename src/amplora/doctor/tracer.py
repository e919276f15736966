"""The doctor's always-on instruments, built to cost almost nothing until something fails.

- `FaultCatcher`, a TorchDispatchMode: sees every aten op (forward and backward, custom autograd.Function
  backward included); its hot path is a bare try/except around the op. On failure it attaches a Capture to the
  exception and re-raises it unchanged. Optionally it hands small floating results to a callback (the non-finite
  watch's check of the script's own arithmetic).
- `Recorder`, two global module hooks: a stack of autograd sequence numbers per module call, so that a failing
  backward node can be mapped to "the module whose forward created it" (nodes get increasing sequence numbers as
  they are created); the last module that produced each output tensor (by data pointer), so an off-dtype
  activation can be traced to its producer; and the outermost modules seen (roots for naming).
"""
from __future__ import annotations

import os
import sys
import weakref
from collections import deque

import torch
from torch.nn.modules.module import (register_module_forward_hook, register_module_forward_pre_hook,
                                     register_module_parameter_registration_hook)

from amplora.doctor.capture import WatchingMode, capture_op
from amplora.precision import HALF_DTYPES

_MODULE_PY = os.path.join("torch", "nn", "modules", "module.py")  # where nn.Module.load_state_dict lives

_seq = torch._C._autograd._get_sequence_nr
SMALL = 1 << 16  # elements: checking a result this size outside modules costs microseconds
# half-precision results outside modules are checked up to this size: sliding-window or ensemble accumulators and
# masks made in fp16 or bf16 by the script's own code, where a value past the range or a 0/0 is born
HALF_LARGE = 1 << 22
_ref = weakref.ref


class FaultCatcher(WatchingMode):
    """Pass every op through untouched; on an exception, record what failed and re-raise the same exception."""

    def __init__(self, on_capture=None, on_scalar=None, on_op=None):
        super().__init__()
        self.on_capture = on_capture  # optional callback(capture, exc) -> exception to raise instead, or None
        self.on_scalar = on_scalar    # optional callback(func, args, kwargs, out) for small or half floating results
        self.on_op = on_op            # optional callback(func, args, kwargs, out) for every op

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        try:
            out = func(*args, **(kwargs or {}))
        except Exception as exc:
            if getattr(exc, "_amplora_capture", None) is None:
                replacement = None
                try:
                    exc._amplora_capture = capture_op(func, args, kwargs)
                    if self.on_capture is not None:
                        replacement = self.on_capture(exc._amplora_capture, exc)
                except Exception:  # the doctor must never replace the user's error with its own
                    replacement = None
                if replacement is not None:
                    raise replacement from exc
            raise
        # a running sum, metric or hand-written loss, probabilities or scores: the values no module hook sees
        if (self.on_scalar is not None and type(out) is torch.Tensor and out.is_floating_point()
                and (out.numel() <= SMALL or out.dtype in HALF_DTYPES and out.numel() <= HALF_LARGE)):
            self.on_scalar(func, args, kwargs, out)
        if self.on_op is not None:
            self.on_op(func, args, kwargs, out)
        return out


class Recorder:
    """Global forward hooks that remember just enough to name modules after a fault."""

    def __init__(self, max_intervals: int = 100_000):
        self.stack: list[int] = []
        self.intervals: deque = deque(maxlen=max_intervals)   # (first seq, end seq, module) per module call
        self.producers: dict[int, tuple] = {}                # data_ptr -> (module, weakref to the output)
        self.promoted: list[tuple] = []   # (module, dtype given, wider dtype returned) per call that widened one
        self.roots: list = []                                 # outermost modules called, most recent last
        self.forward_calls = 0
        self.pending = None   # a callable to run at the next module call (deferred clean-up after a fault)
        # module -> {parameter name: (old dtype, new dtype, "file:line")} for parameters that
        # `load_state_dict(..., assign=True)` replaced with a tensor of another dtype
        self.assigned: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._handles: list = []

    def install(self) -> None:
        self._handles = [register_module_forward_pre_hook(self._pre),
                         register_module_forward_hook(self._post, always_call=True),
                         register_module_parameter_registration_hook(self._registered)]

    def _registered(self, module, name, param):
        """A parameter (re)registered: inside `load_state_dict(assign=True)` with another dtype than the one it
        replaces, remember where that load was called."""
        old = module._parameters.get(name)
        if old is None or param is None or old.dtype == param.dtype:
            return None
        frame, where = sys._getframe(1), None
        while frame is not None:
            if frame.f_code.co_name == "load_state_dict" and frame.f_code.co_filename.endswith(_MODULE_PY):
                caller = frame.f_back
                if caller is not None:
                    where = f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"
                break
            frame = frame.f_back
        if where is not None:
            self.assigned.setdefault(module, {})[name] = (old.dtype, param.dtype, where)
        return None

    def assigned_in(self, module) -> tuple | None:
        """(old dtype, new dtype, "file:line") of an assign load that changed a parameter of `module` or below."""
        for sub in module.modules():
            for record in self.assigned.get(sub, {}).values():
                return record
        return None

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _pre(self, module, args):
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending()
        if not self.stack:
            self._enter_root(module)
        self.stack.append(_seq())

    def _post(self, module, args, out):
        start = self.stack.pop() if self.stack else 0
        self.intervals.append((start, _seq(), module))
        if isinstance(out, torch.Tensor):
            try:
                self.producers[out.data_ptr()] = (module, _ref(out))
            except Exception:  # tensor subclasses without storage or weakref support
                pass
            if out.is_floating_point() and len(self.promoted) < 64:
                given = [a.dtype for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()]
                # only widening (bf16 in, fp32 out): autocast's narrowing casts are no one's mistake
                if given and out.dtype not in given and out.dtype.itemsize > given[0].itemsize:
                    self.promoted.append((module, given[0], out.dtype))

    def _enter_root(self, module) -> None:
        self.forward_calls += 1
        self.producers.clear()  # a new outermost forward: older activations are gone or irrelevant
        self.promoted.clear()
        if not any(r is module for r in self.roots):
            self.roots.append(module)
            del self.roots[:-8]

    def module_for_node(self, seq: int):
        """The innermost module whose forward call created the autograd node with sequence number `seq`."""
        best, width = None, None
        for start, end, module in self.intervals:
            if start <= seq < end and (width is None or end - start < width):
                best, width = module, end - start
        return best

    def promoter_within(self, outer, given: torch.dtype, returned: torch.dtype):
        """The first module inside `outer` (or `outer` itself) that, in the current forward, was given `given`
        activations and returned `returned` ones: where a container's output changed dtype."""
        inside = {id(m) for m in outer.modules()}
        return next((m for m, g, r in self.promoted if g == given and r == returned and id(m) in inside), None)

    def producer_of(self, tensor: torch.Tensor):
        """The module that returned `tensor` (or the tensor it is a view of) in the current forward, if any.

        The output must still be alive and share `tensor`'s storage: a dead output's memory may have been reused.
        """
        try:
            hit = self.producers.get(tensor.data_ptr())
            if hit is None:
                return None
            out = hit[1]()
            if (out is not None and out.dtype == tensor.dtype
                    and out.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()):
                return hit[0]
        except Exception:
            pass
        return None
