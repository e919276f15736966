"""Tensors shaped like a parameter but kept in another dtype elsewhere: a hand-written optimizer's state (Adam's
moments, Lion's momentum, an EMA copy) that no hook sees. Found through the garbage collector, once, after a fault."""
from __future__ import annotations

import gc
import types

import torch

from amplora.precision import HALF_DTYPES


def half_copies(p: torch.Tensor, limit: int = 4) -> list[tuple[torch.Tensor, str]]:
    """Up to `limit` (tensor, name) pairs: plain tensors of `p`'s shape kept in fp16/bf16 while `p` is not, named
    by their owner (`CompactAdam.state['v']`) where the referrers tell it."""
    if p.dtype in HALF_DTYPES or p.numel() < 2:
        return []
    every = gc.get_objects()
    found = tuple(obj for obj in every if type(obj) is torch.Tensor and obj is not p and obj.dtype in HALF_DTYPES
                  and obj.shape == p.shape and not obj.requires_grad)[:limit]
    del every  # lists that refer to the tensors here must not be taken for their holders (found is a tuple)
    return [(t, _name(t)) for t in found]


def _name(t: torch.Tensor, depth: int = 4) -> str:
    """`Owner.attr['key']` / `Owner.attr[0]` for a tensor held in dicts or lists under an object's attribute (a
    module-level name stands alone), else 'a tensor'."""
    keys: list[str] = []
    current: object = t
    for _ in range(depth):
        referrers = gc.get_referrers(current)
        for r in referrers:  # an object holding it as an attribute (its __dict__ may be managed, not a referrer)
            attrs = getattr(r, "__dict__", None)
            if isinstance(attrs, dict) and not isinstance(r, type):
                attr = next((k for k, v in attrs.items() if v is current), None)
                if attr is not None:
                    return _attribute(r, attr) + "".join(reversed(keys))
        holder = next((r for r in referrers if isinstance(r, (dict, list))
                       and any(v is current for v in (r.values() if isinstance(r, dict) else r))), None)
        del referrers  # a list that refers to `holder`: the next level must not take it for one
        if holder is None:
            break
        if isinstance(holder, dict):
            key = next(k for k, v in holder.items() if v is current)
            owner = next((r for r in gc.get_referrers(holder) if getattr(r, "__dict__", None) is holder), None)
            if owner is not None and isinstance(key, str):
                return _attribute(owner, key) + "".join(reversed(keys))
            keys.append(f"[{key!r}]" if isinstance(key, (str, int)) else "[...]")
        else:
            keys.append(f"[{next(i for i, v in enumerate(holder) if v is current)}]")
        current = holder
    return "a tensor"


def _attribute(owner: object, name: str) -> str:
    """`Owner.name`, or the bare name of a module-level variable."""
    return name if isinstance(owner, types.ModuleType) else f"{type(owner).__name__}.{name}"
