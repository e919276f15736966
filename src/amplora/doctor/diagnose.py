"""From a failed op (or a plain exception) to a PrecisionFault: phase, module, operands, then culprit/cause/fix.

The knowledge base decides *whether* an exception is a precision fault and gives the generic cause and fix;
the rules in rules.py refine them with what was live: names of parameters, the module that produced an
off-dtype activation, the custom autograd.Function whose backward wrote into a wrong buffer.
"""
from __future__ import annotations

import torch

from amplora.doctor import kb
from amplora.doctor.capture import Capture, FrameFacts, find_capture, scan_frames, traceback_frames
from amplora.doctor.fault import Operand, PrecisionFault
from amplora.doctor.naming import Namer, owner_path
from amplora.doctor.rules import apply_rules
from amplora.doctor.scene import Scene
from amplora.precision import dtype_name


def frame_tensors(frame) -> list[tuple[str, torch.Tensor]]:
    """Tensor locals of the frame an error surfaced in (when no op was captured, e.g. a check done in C++
    before dispatch): `F.conv1d(input, weight, bias)` raising leaves input/weight/bias here."""
    found = []
    for name, value in frame.f_locals.items():
        if name != "self" and isinstance(value, torch.Tensor):
            found.append((name, value))
    return found[:8]


def error_message(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


def phase_of(cap: Capture | None, facts: FrameFacts, recorder) -> str:
    if (cap is not None and cap.node_name) or facts.backward_function or (facts.in_backward_call and not facts.modules):
        return "backward"
    if facts.in_scaler:
        return "loss-scaler step"
    if facts.in_optimizer:
        return "optimizer step"
    if facts.in_generate:
        return "generate"
    if facts.modules:
        root = facts.modules[-1]
        if cap is not None and not cap.grad_enabled and not root.training:
            return "eval"
        return "forward"
    if facts.init_like or (recorder is not None and recorder.forward_calls == 0):
        return "init"
    if cap is not None and "loss" in cap.op:
        return "loss"
    return "step (outside any module)"


def _roots(model, facts: FrameFacts, recorder) -> list:
    roots = [model] if model is not None else []
    if facts.modules:
        roots.append(facts.modules[-1])
    if recorder is not None:
        roots.extend(reversed(recorder.roots))
    return roots


def _describe(scene: Scene) -> None:
    """Fill scene.operands with dtype/device/shape and where each tensor came from."""
    for i, (role, t) in enumerate(scene.tensors):
        origin = ""
        hit = scene.namer.param(t)
        buffer = scene.namer.buffer_name(t) if hit is None else None
        if hit is not None:
            scene.params[i] = hit[0]
            origin = f"parameter {hit[0]}"
        elif buffer is not None:
            scene.buffers[i] = buffer
            origin = f"buffer {buffer}"
        elif scene.recorder is not None and scene.phase != "backward":  # producers are forward-only facts
            prod = scene.recorder.producer_of(t)
            if prod is not None and prod is not scene.module:
                scene.producers[i] = prod
                origin = f"output of {scene.namer.module_path(prod)}"
        try:
            shape = tuple(t.shape)
        except Exception:
            shape = ()
        scene.operands.append(Operand(role, dtype_name(t.dtype), str(t.device), shape, origin))


def build_scene(exc: BaseException, *, recorder=None, model=None) -> Scene | None:
    cap, carrier = find_capture(exc)
    message = str(carrier)
    entry = kb.lookup(message)
    if entry is None:
        return None
    frames = traceback_frames(carrier) if cap is None else []
    facts = cap.facts if cap is not None else scan_frames(frames)
    namer = Namer(_roots(model, facts, recorder))
    scene = Scene(exc=carrier, message=message, entry=entry, facts=facts,
                  phase=phase_of(cap, facts, recorder), namer=namer, recorder=recorder, cap=cap)
    if scene.phase == "backward" and cap is not None and cap.node_seq >= 0 and recorder is not None:
        scene.module = recorder.module_for_node(cap.node_seq)
    elif facts.modules:
        scene.module = facts.modules[0]
    elif facts.method_owner is not None:
        scene.module = facts.method_owner
    scene.tensors = list(cap.operands) if cap is not None else (frame_tensors(frames[0]) if frames else [])
    _describe(scene)
    if scene.module is not None:
        scene.module_path = namer.module_path(scene.module)
    elif scene.params:  # at init, outside any forward: the module that owns the parameter the op touched
        scene.module_path = owner_path(next(iter(scene.params.values()))) or None
    return scene


def diagnose(exc: BaseException, *, recorder=None, model=None,
             fault_cls: type[PrecisionFault] = PrecisionFault) -> PrecisionFault | None:
    """A PrecisionFault for `exc`, or None when `exc` is not a dtype/device fault (or cannot be diagnosed)."""

    try:
        scene = build_scene(exc, recorder=recorder, model=model)
        if scene is None:
            return None
        culprit, cause, fix = apply_rules(scene)
        return fault_cls(phase=scene.phase, module=scene.module_path, op=scene.op,
                         operands=scene.operands, culprit=culprit, cause=cause, fix=fix, kind=scene.entry.kind,
                         key=scene.entry.key, error=error_message(scene.exc), original=exc, where=scene.facts.located)
    except Exception as bug:  # never let the doctor hide the user's error behind its own
        import warnings
        warnings.warn(f"amplora doctor could not diagnose {type(exc).__name__}: {type(bug).__name__}: {bug}",
                      RuntimeWarning, stacklevel=2)
        return None
