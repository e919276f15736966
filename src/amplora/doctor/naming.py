"""Names for modules and tensors after a fault: qualified paths from the outermost module, parameter names.

Built lazily from candidate roots (the watched model, the outermost module on the stack, roots the recorder saw);
when none of them holds what we look for, the garbage collector is asked for every live nn.Module (slow, but only
ever after a fault).
"""
from __future__ import annotations

import gc
import warnings
from collections import Counter

import torch
from torch import nn

from amplora.precision import dtype_name

# path components that are internals of an adapter, not the adapted layer (PEFT and common hand-rolled LoRA)
ADAPTER_PARTS = {"lora_A", "lora_B", "lora_a", "lora_b", "default", "lora_magnitude_vector", "lora_dropout",
                 "lora_embedding_A", "lora_embedding_B", "base_layer"}


class _Index:
    def __init__(self, root: nn.Module):
        self.root = root
        self.modules = {id(m): name for name, m in root.named_modules(remove_duplicate=False)}
        self.params = {}
        self.by_storage = {}
        for name, p in root.named_parameters(remove_duplicate=False):
            self.params.setdefault(id(p), (name, p))
            try:
                self.by_storage.setdefault(p.untyped_storage().data_ptr(), (name, p))
            except Exception:
                pass
        self.buffers = {id(b): name for name, b in root.named_buffers(remove_duplicate=False)}


class Namer:
    def __init__(self, roots=()):
        self._roots: list[nn.Module] = []
        self._indexes: list[_Index] | None = None
        self._searched_gc = False
        for r in roots:
            self.add_root(r)

    def add_root(self, root) -> None:
        if isinstance(root, nn.Module) and not any(r is root for r in self._roots):
            self._roots.append(root)
            self._indexes = None

    def roots(self) -> list[nn.Module]:
        """The known models, outermost first."""
        return [ix.root for ix in self._all()]

    def _all(self) -> list[_Index]:
        if self._indexes is None:
            # largest first: the qualified name from the outermost module wins
            self._indexes = sorted((_Index(r) for r in self._roots), key=lambda ix: -len(ix.modules))
        return self._indexes

    def _with_gc(self):
        yield from self._all()
        if not self._searched_gc:
            self._searched_gc = True
            for root in discover_roots():
                self.add_root(root)
            yield from self._all()

    def module_path(self, module: nn.Module | None) -> str | None:
        if module is None:
            return None
        for ix in self._with_gc():
            name = ix.modules.get(id(module))
            if name is not None:
                return name or type(module).__name__  # the root itself: its class name
        return type(module).__name__

    def param(self, tensor: torch.Tensor) -> tuple[str, nn.Parameter] | None:
        """(name, parameter) when `tensor` is a parameter or a view / .data / .detach() of one."""
        for ix in self._with_gc():
            hit = ix.params.get(id(tensor))
            if hit is None:
                try:
                    ptr = tensor.untyped_storage().data_ptr()
                except Exception:
                    continue
                hit = ix.by_storage.get(ptr) if ptr else None
                if hit is not None and hit[1].dtype != tensor.dtype:
                    hit = None
            if hit is not None:
                return hit
        return None

    def buffer_name(self, tensor: torch.Tensor) -> str | None:
        """The qualified name of `tensor` when it is a registered buffer."""
        for ix in self._all():  # buffers are looked up in the known models only: no gc search for them
            name = ix.buffers.get(id(tensor))
            if name is not None:
                return name
        return None

    def param_name(self, tensor: torch.Tensor) -> str | None:
        hit = self.param(tensor)
        return hit[0] if hit else None

    def root_of(self, module: nn.Module) -> nn.Module | None:
        for ix in self._with_gc():
            if id(module) in ix.modules:
                return ix.root
        return None


def owner_path(param_name: str) -> str:
    return param_name.rsplit(".", 1)[0] if "." in param_name else ""


def adapted_layer(path: str) -> str:
    """'…q_proj.lora_A.default' -> '…q_proj': climb out of adapter internals to the layer being adapted."""
    parts = path.split(".")
    while len(parts) > 1 and parts[-1] in ADAPTER_PARTS:
        parts.pop()
    return ".".join(parts)


def discover_roots() -> list[nn.Module]:
    """Every live nn.Module that is nobody's child (the user's models), largest first."""
    with warnings.catch_warnings():  # isinstance() on some lazy module objects emits deprecation warnings
        warnings.simplefilter("ignore")
        modules = [o for o in gc.get_objects() if isinstance(o, nn.Module)]
    children = {id(c) for m in modules for c in m._modules.values() if c is not None}
    roots = [m for m in modules if id(m) not in children]
    return sorted(roots, key=lambda m: -sum(1 for _ in m.modules()))[:16]


def float_params(module: nn.Module, recurse: bool = True):
    return [(n, p) for n, p in module.named_parameters(recurse=recurse) if p.is_floating_point()]


def dominant_dtype(module: nn.Module) -> torch.dtype | None:
    """The dtype most frozen float weight elements are stored in (all params when nothing is frozen)."""
    params = float_params(module)
    frozen = [p for _, p in params if not p.requires_grad] or [p for _, p in params]
    if not frozen:
        return None
    counts = Counter()
    for p in frozen:
        counts[p.dtype] += p.numel()
    return counts.most_common(1)[0][0]


def param_dtypes(module: nn.Module, recurse: bool = True) -> str:
    """'bf16' or 'bf16 (weight), fp32 (magnitude)' when mixed."""
    by_dtype: dict[torch.dtype, list[str]] = {}
    for n, p in float_params(module, recurse):
        by_dtype.setdefault(p.dtype, []).append(n)
    if len(by_dtype) <= 1:
        return ", ".join(dtype_name(d) for d in by_dtype) or "no float params"
    return ", ".join(f"{dtype_name(d)} ({', '.join(names[:3])}{', …' if len(names) > 3 else ''})"
                     for d, names in by_dtype.items())


def leaf_params(tensor: torch.Tensor, limit: int = 400) -> list[torch.Tensor]:
    """Leaf tensors requiring grad that flow into `tensor` (walks its autograd graph, bounded)."""
    fn = getattr(tensor, "grad_fn", None)
    if fn is None:
        return [tensor] if tensor.requires_grad and tensor.is_leaf else []
    found, seen, keep, todo = [], set(), [], [fn]
    while todo and len(seen) < limit:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)  # keep wrappers alive so their ids are not reused during the walk
        var = getattr(node, "variable", None)
        if isinstance(var, torch.Tensor):
            found.append(var)
        todo.extend(nxt for nxt, _ in getattr(node, "next_functions", ()))
    return found
