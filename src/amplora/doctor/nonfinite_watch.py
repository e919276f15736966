"""The always-on part of non-finite tracing, for `watch()`: cheap checks that only say *whether* inf/NaN appeared.

- after each outermost module call: its loss (`.loss`, else its first tensor output) is finite, and without a
  loss every floating output (a mean and a variance, logits and values);
- at the end of the backward through that output: the trainable parameters' gradients are finite;
- after each `optimizer.step()`: its parameters are finite;
- each 0-dim floating result, each fp16/bf16 result of up to 4194304 elements and each one of up to 65536 that has
  an fp16/bf16 operand, computed on the CPU outside any module and outside backward (a running sum, a metric, a
  hand-written loss, probabilities computed by hand, a step of a sampler, a sliding-window accumulator): finite,
  checked as it is made (on accelerators that would cost a sync per op). One made from inputs that were already
  inf/NaN arms a trace of every op outside modules (and in the forward hooks the script registered on modules) for
  the next few outermost calls, which finds where such a value is born the next time the script's loop makes it;
- each such result of an op in a custom autograd.Function's backward;
- zeros an fp16/bf16 product outside modules makes where fp32 would not (an underflow), followed through the ops
  made from them, so that their log, even after `.float()`, is told as born of that product.

Each check is one fused reduction (one device sync on GPU per check). On the first failure, nonfinite.locate
re-runs the failing call op by op (the expensive part) and the finding is kept in `first`; nothing is raised.
Gradients that overflow while a GradScaler's scale is above 1 are the scaler backing off, not a fault. Other
gradients that come back inf/NaN are located at once but held as pending: they are the finding once anything
non-finite follows them (parameters after a step, an output, a loss) or the run ends without that module's backward
coming out finite again; a later finite backward of the same module means the script skipped the step and lowered
its own loss scale (a hand-written dynamic scaler), so the overflow is dropped.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import sys
import weakref

import torch
from torch.autograd.function import BackwardCFunction
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from torch.optim.optimizer import register_optimizer_step_post_hook

from amplora.doctor.capture import (_CALL_IMPL, _DOCTOR_DIR, _TORCH_DIR, _is_library, autocast_state, live_frames,
                                    scan_frames, stale_nonfinite)
from amplora.doctor.nonfinite import (OUTSIDE, NonFinite, NonFiniteTracer, _loss_of, _outputs, after_output,
                                      explain_birth, explain_located, explain_params, input_gradient, locate,
                                      nonfinite_params, root_at_zero, zero_eps)
from amplora.doctor.tracer import SMALL
from amplora.precision import HALF_DTYPES

_engine = torch.autograd.Variable._execution_engine
# dtypes whose values `isfinite` reads (float8 has no kernel for it)
_CHECKED = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
# an exp in half precision outside modules (a hand-written softmax, kernel or partition function): its results
# underflow to 0 and overflow past the dtype's top, and what divides by them carries that into the gradients
_EXPS = {torch.ops.aten.exp.default, torch.ops.aten.exp2.default}
# products in fp16/bf16 outside modules (probabilities multiplied over steps): where one makes a 0 that fp32 would
# not, the zero is followed through the ops made from it, so a log of it later (after `.float()`) is told as born there
_PRODUCTS = {torch.ops.aten.mul.Tensor, torch.ops.aten.prod.default, torch.ops.aten.prod.dim_int,
             torch.ops.aten.pow.Tensor_Scalar, torch.ops.aten.pow.Tensor_Tensor, torch.ops.aten.div.Tensor,
             # probabilities propagated by a matrix (a transition matrix, attention over probabilities)
             torch.ops.aten.mm.default, torch.ops.aten.bmm.default, torch.ops.aten.mv.default}
_LOGS = {torch.ops.aten.log.default, torch.ops.aten.log2.default, torch.ops.aten.log10.default}
# ops whose backward divides by their result (a distance or norm of 0 makes the gradient inf)
_ROOTS = {torch.ops.aten.sqrt.default, torch.ops.aten.linalg_vector_norm.default, torch.ops.aten.norm.Scalar,
          torch.ops.aten.norm.ScalarOpt_dim, torch.ops.aten._cdist_forward.default}


def _readable(t):
    """`t` as a tensor whose values can be read here: a DTensor (FSDP2, tensor parallel) as this rank's shard; None
    for tensors without values (fake and functional tensors while torch.export or torch.compile traces)."""
    if t is None or t.device.type == "meta":
        return None
    if hasattr(t, "to_local"):
        t = t.to_local()
    return t if type(t) in (torch.Tensor, torch.nn.Parameter) else None


def _never_raises(hook):
    """The doctor must never break the user's run: a hook that fails is skipped."""
    def guarded(*args, **kwargs):
        try:
            return hook(*args, **kwargs)
        except Exception:
            return None
    return guarded


def _values_hidden() -> bool:
    """Inside vmap / grad (torch.func) values are wrapped, under torch.export / torch.compile they are fake, and under
    torch.jit.trace every op the doctor runs would be recorded into the user's graph: reading them would break the
    transform or the trace."""
    return (torch._C._are_functorch_transforms_active() or torch.compiler.is_compiling()
            or torch._C._is_tracing())


def _forward_hook_at(frame):
    """(the hook's name, its module's class) when `frame` runs inside a forward hook a script registered on a
    module, else None: the frame just below torch's module call that is not a `forward`."""
    below = None
    for f in itertools.islice(live_frames(frame), 40):
        if f.f_code is _CALL_IMPL:
            if below is None or below.co_name == "forward" or _is_library(below.co_filename):
                return None  # the forward itself, or a library's wrapper around it (a decorator, offload hooks)
            return below.co_name, type(f.f_locals.get("self")).__name__
        if not f.f_code.co_filename.startswith((_TORCH_DIR, _DOCTOR_DIR)):
            below = f.f_code
    return None


def all_finite(tensors) -> bool:
    """One cheap verdict for many tensors: norms are fused per device; a norm that overflows (large finite fp16
    values) only costs an exact re-check."""
    tensors = [_readable(t) for t in tensors if t is not None and t.is_floating_point()]
    tensors = [t.detach() for t in tensors if t is not None]
    if not tensors:
        return True
    norms = torch._foreach_norm(tensors)
    if bool(torch.isfinite(torch.stack([n.float() for n in norms])).all()):
        return True
    return all(bool(torch.isfinite(t).all()) for t in tensors)


class NonFiniteWatch:
    def __init__(self, recorder, model=None):
        self.recorder = recorder
        self.model = model
        self.first: NonFinite | None = None
        self.pending: tuple[torch.nn.Module, NonFinite] | None = None  # a gradient overflow (see the module doc)
        self.busy = False
        self.depth = 0
        self.rng = None
        self.autocast: dict = {}
        self._handles: list = []
        # id -> (the 0-dim result, its last finite value); the reference guards against a freed tensor's id reused
        self._scalars: dict[int, tuple[weakref.ref, float]] = {}
        self._armed = 0  # outermost module calls left to trace every op outside modules for (see `op`)
        self._tracer: NonFiniteTracer | None = None
        self._roots: list = []  # (op, result, where) of square roots and norms taken outside modules this step
        self._exp: tuple | None = None  # (dtype, where) of the first exp taken in fp16/bf16 outside modules this step
        # id -> (tensor, (dtype, where)): results outside modules holding zeros born of a half-precision underflow
        self._underflow: dict[int, tuple[weakref.ref, tuple]] = {}
        self.notes: list[str] = []  # hazards seen on the way that need not make anything non-finite
        self._optimizers: set[int] = set()  # optimizers whose first step was looked at

    def install(self) -> None:
        self._handles = [register_module_forward_pre_hook(self._pre),
                         register_module_forward_hook(self._post, with_kwargs=True, always_call=True),
                         register_optimizer_step_post_hook(self._after_step)]

    def remove(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles = []

    @property
    def done(self) -> bool:
        return self.first is not None or self.busy

    def finding(self, final: bool = False) -> NonFinite | None:
        """Where inf/NaN first appeared: a pending gradient overflow once something non-finite followed it (it is
        the origin), or with `final` (the run is over) when nothing showed that the script recovered from it."""
        if self.first is None and not (final and self.pending is not None):
            return None
        return self.pending[1] if self.pending is not None else self.first

    @_never_raises
    def scalar(self, func, args, kwargs, out) -> None:
        """FaultCatcher's hook for small and half-precision results: one made inf/NaN from finite inputs by the script's
        own code."""
        if (self.depth or self.done or out.device.type != "cpu" or out.dtype not in _CHECKED
                or torch._C._current_graph_task_id() != -1 or torch._C._is_tracing()):
            return
        underflow = self._underflow_of(args[0]) if func in _LOGS and args else None
        if out.ndim:  # half precision made it, or a half operand took part (`x / (1 - a).sqrt()`, a fp16)
            if out.dtype not in HALF_DTYPES and not any(type(a) is torch.Tensor and a.dtype in HALF_DTYPES
                                                         for a in args) and underflow is None:
                return
            if bool(torch.isfinite(out).all()):
                return
        else:
            value = float(out.detach())
            if math.isfinite(value):
                if len(self._scalars) > 256:
                    self._scalars.clear()
                self._scalars[id(out)] = (weakref.ref(out), value)  # what `total += loss` started from
                return
        try:
            kept = self._scalars.get(id(out))
            if func._schema.is_mutable and args and args[0] is out and kept is not None and kept[0]() is out:
                args = (torch.tensor(kept[1], dtype=out.dtype), *args[1:])
            tracer = NonFiniteTracer()
            tracer._check(func, args, kwargs or {}, out, caller=sys._getframe(2))
            if tracer.first is not None:
                self.first = explain_birth(tracer.first, OUTSIDE, None, underflow=underflow)
            elif not self._armed:  # made from values already inf/NaN: find where they are born next time
                self._armed, self._tracer = 4, NonFiniteTracer()
        except Exception:  # the doctor must never break the user's run
            pass

    # ---- hooks --------------------------------------------------------------------------------------------------
    def op(self, func, args, kwargs, out) -> None:
        """FaultCatcher's hook for every op: once armed, the first op outside modules (and outside backward) that
        makes inf/NaN from finite inputs on the CPU. Also keeps the square roots and norms taken outside modules in
        this step: their backward divides by their result, so a loss whose gradient comes back NaN is checked for
        one that was 0."""
        if self.done or torch._C._is_tracing():
            return
        if self.depth:
            # inside a module call only a user's forward hook is the script's own code (an activation penalty
            # summed there): traced once armed, like the code outside modules
            if self._armed and torch._C._current_graph_task_id() == -1:
                hook = _forward_hook_at(sys._getframe(2))
                if hook is not None:
                    self._trace_armed(func, args, kwargs, out, f"the forward hook `{hook[0]}` of {hook[1]}")
            return
        if torch._C._current_graph_task_id() != -1:
            self._custom_backward(func, args, kwargs, out, sys._getframe(2))
            return
        try:
            if func in _ROOTS and isinstance(out, torch.Tensor) and torch.is_grad_enabled() and len(self._roots) < 16:
                self._roots.append((func, out.detach(), scan_frames(live_frames(sys._getframe(2)))))
            if (self._exp is None and func in _EXPS and isinstance(out, torch.Tensor) and out.dtype in HALF_DTYPES
                    and torch.is_grad_enabled()):
                self._exp = (out.dtype, scan_frames(live_frames(sys._getframe(2))))
            for t in (out if isinstance(out, (list, tuple)) else (out,))[:4]:  # a topk's values, a max's
                if type(t) is torch.Tensor and t.is_floating_point() and t.device.type == "cpu" and t.numel() <= SMALL:
                    self._follow_underflow(func, args, kwargs, t, sys._getframe(2))
            if self._armed:
                self._trace_armed(func, args, kwargs, out, None)
        except Exception:  # the doctor must never break the user's run
            self._armed = 0

    def _underflow_of(self, t) -> tuple | None:
        kept = self._underflow.get(id(t))
        return kept[1] if kept is not None and kept[0]() is t else None

    @_never_raises
    def _follow_underflow(self, func, args, kwargs, out, caller) -> None:
        """Keep `out` when it holds zeros born of a half-precision product that fp32 would not have made, or comes
        from such a result (a topk, an index, `.float()`) and still holds zeros."""
        product = func in _PRODUCTS and out.dtype in HALF_DTYPES
        if not (product or self._underflow):  # the common case: nothing to follow, nothing to start from
            return
        origin = next((o for o in map(self._underflow_of, args) if o is not None), None)
        if origin is None and not product:
            return
        zeros = out == 0
        if not bool(zeros.any()):
            return
        if origin is None:
            wide = func(*[a.float() if type(a) is torch.Tensor and a.dtype in HALF_DTYPES else a for a in args],
                        **(kwargs or {}))
            if bool((zeros & (wide != 0)).any()):
                origin = (out.dtype, scan_frames(live_frames(caller)))
        if origin is not None:
            if len(self._underflow) > 64:
                self._underflow = {k: v for k, v in self._underflow.items() if v[0]() is not None}
                if len(self._underflow) > 64:
                    self._underflow.clear()
            self._underflow[id(out)] = (weakref.ref(out), origin)

    def _trace_armed(self, func, args, kwargs, out, where) -> None:
        """Once armed: the first op on the CPU that makes inf/NaN from finite inputs is where the value is born."""
        try:
            outs = out if isinstance(out, (list, tuple)) else [out]
            if any(isinstance(t, torch.Tensor) and t.device.type != "cpu" for t in outs):
                return
            self._tracer._check(func, args, kwargs or {}, out, caller=sys._getframe(3))
            if self._tracer.first is not None:
                phase = OUTSIDE if where is None else "forward"
                self.first, self._armed = explain_birth(self._tracer.first, phase, where), 0
        except Exception:  # the doctor must never break the user's run
            self._armed = 0

    @_never_raises
    def _custom_backward(self, func, args, kwargs, out, caller) -> None:
        """An op inside a custom autograd.Function's backward (a hand-written gradient: its own divisions, square
        roots and eps) that makes inf/NaN from finite inputs, checked on the CPU for results up to SMALL elements."""
        node = torch._C._current_autograd_node()
        if not isinstance(node, BackwardCFunction):
            return
        outs = [t for t in (out if isinstance(out, (list, tuple)) else [out])
                if isinstance(t, torch.Tensor) and t.is_floating_point()]
        if not outs or any(type(t) is not torch.Tensor or t.device.type != "cpu" or t.numel() > SMALL
                           or t.dtype not in _CHECKED for t in outs):
            return
        if all(bool(torch.isfinite(t).all()) for t in outs):
            return
        tracer = NonFiniteTracer()
        tracer._check(func, args, kwargs or {}, out, caller=caller)
        if tracer.first is not None:
            roots = [self.model] if self.model is not None else []
            self.first = explain_located(tracer.first, "backward", roots, self.recorder,
                                         type(node).__name__.removesuffix("Backward"))

    def _pre(self, module, args):
        if self.depth == 0 and self._armed:
            self._armed -= 1  # a few outermost calls are enough for a loop to make the value again
        if self.depth == 0:
            self._roots.clear()  # a new step
            self._exp = None
        if self.depth == 0 and not self.done:
            self.rng = torch.get_rng_state()  # the re-run draws the same dropout masks (CPU generator)
            self.autocast = autocast_state()  # ...and computes under the same autocast
        self.depth += 1

    def _post(self, module, args, kwargs, out=None):  # no output when the forward raised
        self.depth = max(0, self.depth - 1)
        self._check_output(module, args, kwargs, out)

    @_never_raises
    def _check_output(self, module, args, kwargs, out):
        if self.depth or self.done or out is None or _values_hidden():
            return
        loss = _loss_of(out)
        if not isinstance(loss, torch.Tensor) or not loss.is_floating_point() or _readable(loss) is not loss:
            return
        call = (module, args, kwargs, self.rng, self.autocast)
        outputs = _outputs(out)
        if not bool(torch.isfinite(loss.detach()).all()) or (
                loss is not getattr(out, "loss", None) and len(outputs) > 1 and not all_finite(outputs)):
            self.first = self._locate(call)
        else:
            # every output a loss may be computed from (a tuple's mean and scale, a dict's logits) reports the
            # gradient that comes back into it; the loss's own gradient is the one a re-run starts from
            pairs: list = []
            for t in _outputs(out):
                if t.requires_grad:
                    kept = t.detach() if t.numel() <= 1 << 20 else None  # a huge output is not held on to
                    t.register_hook(lambda grad, t=t, kept=kept: self._on_backward(call, grad, kept, t is loss,
                                                                                    pairs))

    @_never_raises
    def _on_backward(self, call, grad, out, is_loss, pairs):
        if self.done:
            return
        if not pairs:  # the first of this call's outputs to get its gradient: check once, after the backward
            _engine.queue_callback(lambda: self._after_backward(call, pairs))
        pairs.append((grad if grad.numel() <= 1 << 20 else None, out, is_loss))  # a huge gradient is not kept

    @_never_raises
    def _after_backward(self, call, pairs):
        # empty the shared list, so that a later backward through the same outputs (after a
        # `torch.autograd.grad(..., create_graph=True)` over them, as gradient penalties take) checks again
        taken, pairs = pairs, list(pairs)
        taken.clear()
        module = call[0]
        params = [p for p in module.parameters() if p.requires_grad]
        if self.done:
            return
        if all_finite([p.grad for p in params]):
            if self.pending is not None and self.pending[0] is module:
                self.pending = None  # finite again: the script skipped that step and lowered its loss scale
            return
        if self.pending is not None:
            return  # already located
        found = self._gradient_birth(call, pairs)
        if found is not None:
            self.pending = (module, found)

    def _gradient_birth(self, call, pairs) -> NonFinite | None:
        module = call[0]
        grad = next((g for g, _, is_loss in pairs if is_loss), None)
        if grad is not None and grad.numel() == 1 and float(grad.detach().abs()) > 1:
            return None  # a loss scaled by a GradScaler above 1: overflowing gradients make it back off, as designed
        for g, out, _ in pairs:
            if g is not None and out is not None and g.numel() > 1 and not all_finite([g]) and all_finite([out]):
                # a finite output whose gradient came back inf/NaN: born in the loss, after the model (at a
                # square root or norm of 0, when the loss took one)
                zero = next(((f, r, frame) for f, r, frame in self._roots if bool((r == 0).any())), None)
                return (root_at_zero(str(zero[0]), zero[1], zero[2]) if zero is not None
                        else after_output(type(module).__name__, out, g, stale_nonfinite(live_frames(sys._getframe())),
                                          exp=self._exp))
        return self._locate(call, grad)

    @_never_raises
    def _after_step(self, optimizer, args, kwargs):
        if self.done:
            return
        if id(optimizer) not in self._optimizers:  # its state exists from the first step on
            self._optimizers.add(id(optimizer))
            note = zero_eps(optimizer, self._naming_roots())
            if note:
                self.notes.append(note)
        params = [p for g in optimizer.param_groups for p in g["params"]]
        if all_finite(params):
            return
        roots = self._naming_roots()
        bad = nonfinite_params(roots or [torch.nn.Module()], params)
        if bad:
            self.first = explain_params(bad, roots, optimizer)

    def _naming_roots(self) -> list:
        """The modules that name parameters: the watched model, then the outermost modules the script called."""
        return ([self.model] if self.model is not None else []) + list(reversed(self.recorder.roots))

    # ---- the expensive part -------------------------------------------------------------------------------------
    def _locate(self, call, grad=None) -> NonFinite:
        module, args, kwargs, rng, autocast = call
        self.busy = True
        try:
            with torch.random.fork_rng(devices=[]), contextlib.ExitStack() as regions:
                for device, dtype in autocast.items():
                    regions.enter_context(torch.autocast(device, dtype=dtype))
                if rng is not None:
                    torch.set_rng_state(rng)
                # the re-run reads copies of the buffers: a forward that updates them in place (BatchNorm's
                # running statistics, a quantization scale, a cache) must not change the run's state, nor bump the
                # version of a buffer the step's backward has saved
                buffers = {name: b.clone() for name, b in module.named_buffers()}
                found = locate(self.model if self.model is not None else module,
                               lambda: torch.func.functional_call(module, buffers, args, kwargs or {}),
                               grad_output=grad, recorder=self.recorder, roots=[module])
        except Exception:  # the doctor must never break the user's run
            found = None
        finally:
            self.busy = False
        if found is None and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            # an input that requires grad: the gradient that went NaN was taken with respect to it in the loss
            floats = [p.dtype for p in module.parameters() if p.is_floating_point()]
            found = input_gradient(type(module).__name__, floats[0]) if floats else None
        if found is None:  # not reproduced: say so rather than nothing
            found = NonFinite(phase="unknown", module=None, op=None, dtype="?", limit=float("nan"),
                              largest=float("nan"), value="inf/NaN",
                              culprit="a non-finite loss or gradient that a re-run of the same call did not reproduce",
                              cause="The value depends on state the re-run could not restore (a random draw on "
                                    "another generator, an in-place update).",
                              fix="run `torch.autograd.set_detect_anomaly(True)` around the failing step")
        return found
