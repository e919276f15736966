"""Enforce the precision policy at the model boundary, whatever context the caller is in.

A forward pre-hook on the root model (and on its decoder, for callers that run `model.model(...)` to get hidden
states) opens the policy's autocast region; a forward hook with `always_call=True` closes it, even when forward
raises. So `generate()` from a callback outside any autocast (failure S001) and a foreign autocast region of
another dtype both end up under the policy. Logits leave the root in the policy's logits dtype.
The root's and the decoder's forward open the same region once more inside (the only one under torch.compile,
where the hooks stand aside: a region entered in one hook and left in another would split the compiled graph),
so a wrapper put around forward later (accelerate's autocast) does not decide what runs between them.
The same pre-hook marks the start of a top-level call for the fast path's clock (adapters/fast/layer.py), which
bounds what its layers keep between calls.
"""
from __future__ import annotations

import contextlib
import functools
import types
import warnings

import torch
import torch.nn as nn

from amplora.precision import Precision, dtype_name

_STACK = "_amplora_scopes"
_HANDLES = "_amplora_boundary_handles"


def policy_of(model: nn.Module) -> Precision | None:
    return getattr(model, "_amplora_policy", None)


def _device_type(model: nn.Module) -> str:
    for p in model.parameters():
        return p.device.type
    return "cpu"


def policy_autocast(policy: Precision, device_type: str):
    """The region the policy runs in: autocast to the compute dtype, or autocast explicitly *off* for fp32."""
    if policy.autocast:
        return torch.autocast(device_type, dtype=policy.compute)
    return torch.autocast(device_type, enabled=False)


def _warn_if_foreign(root: nn.Module, policy: Precision, device_type: str) -> None:
    if getattr(root, "_amplora_in_scope", 0) or not torch.is_autocast_enabled(device_type):
        return
    outer = torch.get_autocast_dtype(device_type)
    if policy.autocast and outer == policy.compute:
        return
    if not getattr(root, "_amplora_warned_foreign", False):
        root._amplora_warned_foreign = True
        warnings.warn(f"amplora: the caller's autocast({dtype_name(outer)}) region is overridden by the model's "
                      f"precision policy {policy.name} (compute {dtype_name(policy.compute)})", stacklevel=4)


@contextlib.contextmanager
def precision_scope(model: nn.Module):
    """The policy's autocast region, for code that calls a submodule directly. No-op without a policy."""
    policy = policy_of(model)
    if policy is None:
        yield
        return
    device_type = _device_type(model)
    _warn_if_foreign(model, policy, device_type)
    model._amplora_in_scope = getattr(model, "_amplora_in_scope", 0) + 1
    try:
        with policy_autocast(policy, device_type):
            yield
    finally:
        model._amplora_in_scope -= 1


def _enter(module: nn.Module, args):
    if torch.compiler.is_compiling():
        return  # the region opens inside the traced forward instead (_scoped)
    clock = module.__dict__.get("_amplora_clock")
    if clock is not None:
        clock.call()
    scope = precision_scope(module)
    scope.__enter__()
    module.__dict__.setdefault(_STACK, []).append(scope)


def _exit(module: nn.Module, args, output):
    if torch.compiler.is_compiling():
        return output
    stack = module.__dict__.get(_STACK)
    if stack:
        stack.pop().__exit__(None, None, None)
    return _cast_logits(module, output)


def _cast_logits(module: nn.Module, output):
    policy = policy_of(module)
    logits = getattr(output, "logits", None)
    if policy is not None and logits is not None and logits.dtype != policy.logits:
        output["logits"] = logits.to(policy.logits)  # logits/loss dtype is part of the policy
    return output


@functools.cache
def _scoped(cls: type):
    """`cls.forward`, run inside the policy's region. Under torch.compile this is the region: dynamo cannot trace
    one entered in one hook and left in another (each would split the graph). Outside compile the hooks open it
    too, but a wrapper another library puts around this forward after `apply` would open its own region inside
    theirs: accelerate's autocast under `Trainer(bf16=True)` ran the output head, which no adapted module or
    decoder hook covers, in bf16 under an fp32 policy."""
    forward = cls.forward

    @functools.wraps(forward)  # inspect.signature (generate, Trainer) sees the model's own parameters
    def scoped_forward(self, *args, **kwargs):
        with policy_autocast(policy_of(self), _device_type(self)):
            output = forward(self, *args, **kwargs)
        return _cast_logits(self, output)

    scoped_forward.amplora_scoped = True  # what remove() takes off again
    return scoped_forward


def install(model: nn.Module, policy: Precision, clock=None) -> None:
    """Attach `policy` (and the fast path's clock, when the model has one) to `model` and hook its boundary
    (idempotent)."""
    remove(model)
    handles = []
    modules = [model]
    decoder = model.get_decoder() if hasattr(model, "get_decoder") else None
    if isinstance(decoder, nn.Module) and decoder is not model:
        modules.append(decoder)  # the decoder's output has no logits, so only the root casts them
    for m in modules:
        m._amplora_policy = policy
        if clock is not None:
            m._amplora_clock = clock
        handles.append(m.register_forward_pre_hook(_enter))
        handles.append(m.register_forward_hook(_exit, always_call=True))
        if "forward" not in m.__dict__:  # one set by another library (accelerate's offloading hooks) stays
            m.forward = types.MethodType(_scoped(type(m)), m)  # an instance attribute: deepcopy rebinds it
    model.__dict__[_HANDLES] = handles


def remove(model: nn.Module) -> None:
    """Take the policy off `model` (used by merge, which returns a plain transformers model)."""
    for h in model.__dict__.pop(_HANDLES, []):
        h.remove()
    decoder = model.get_decoder() if hasattr(model, "get_decoder") else None
    for m in (model, decoder):
        if not isinstance(m, nn.Module):
            continue
        if getattr(getattr(m.__dict__.get("forward"), "__func__", None), "amplora_scoped", False):
            del m.forward
        for attr in ("_amplora_policy", "_amplora_clock", "_amplora_in_scope", "_amplora_warned_foreign", _STACK):
            m.__dict__.pop(attr, None)
