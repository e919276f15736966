r"""Which Linear modules get an adapter: "all-linear", a list of name suffixes, or a regex.

A Linear module is an nn.Linear (bitsandbytes Linear4bit included) or a transformers Conv1D (GPT-2's c_attn,
c_proj, c_fc): PEFT's "all-linear" takes both.

A single string made of name characters only (letters, digits, `_` and `.`, e.g. `q_proj` or
`layers.0.self_attn.q_proj`) is a name suffix, as if it were a one-element list; any other string is a regex that
must match a module's whole qualified name (e.g. `.*\.(q|v)_proj`).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from amplora.adapters import quant
from amplora.errors import AmploraError

_NAME = re.compile(r"[A-Za-z0-9_.]+")  # no regex syntax in it: read as a name suffix, not as a pattern


def is_name(targets: str) -> bool:
    """A single `targets` string read as a name suffix (not "all-linear", not a regex)."""
    return targets != "all-linear" and _NAME.fullmatch(targets) is not None


def is_linear(m: nn.Module) -> bool:
    return quant.is_conv1d(m) or _linear(m)


def candidate_linears(model: nn.Module) -> dict[str, nn.Module]:
    """Every Linear module (module docstring) except the output head, by qualified name."""
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    parents = dict(model.named_modules())
    return {name: m for name, m in parents.items()
            if is_linear(m) and m is not head and name and not _inside_adapter(name)
            and not _read_by_kernel(name, parents)}


def _linear(m: nn.Module) -> bool:
    """An nn.Linear that computes x·Wᵀ + b, or an NF4 one. A subclass with its own forward is checked on a probe
    input: FalconLinear is the same layer, Llama 4's router returns (scores, logits), and an adapter in its place
    would change what it returns."""
    if not isinstance(m, nn.Linear):
        return False
    if type(m).forward is nn.Linear.forward or quant.is_nf4(m):
        return True
    # no answer (weights not materialized, a forward that wants more) counts as a Linear, as it did before the
    # probe: an adapter in its place then fails loudly rather than being left out silently
    try:
        w = m.weight
        probe = torch.randn(2, m.in_features, generator=torch.Generator().manual_seed(0)).to(w.device, w.dtype)
        with torch.no_grad(), torch.autocast(w.device.type, enabled=False):
            out, ref = m(probe), F.linear(probe, w, m.bias)
    except Exception:
        return True
    # a loose bound: a half-precision layer may round its bias add apart; something else differs grossly
    return (isinstance(out, torch.Tensor) and out.shape == ref.shape
            and bool((out.float() - ref.float()).abs().max() <= 0.05 * ref.float().abs().max()))


def _read_by_kernel(name: str, modules: dict) -> bool:
    """A Mamba mixer's out_proj: its fused kernels read out_proj.weight directly and would skip an adapter there
    (PEFT refuses it too)."""
    parent, _, leaf = name.rpartition(".")
    return leaf == "out_proj" and hasattr(modules.get(parent), "conv1d")


def _inside_adapter(name: str) -> bool:
    parts = name.split(".")
    return "lora_A" in parts or "lora_B" in parts or "base_layer" in parts


def select(model: nn.Module, targets: str | Sequence[str]) -> dict[str, nn.Module]:
    """The Linear modules `targets` names. Nothing matched -> one-line error listing what exists."""
    candidates = candidate_linears(model)
    return {name: candidates[name] for name in matching(list(candidates), targets)}


def matching(names: Sequence[str], targets: str | Sequence[str]) -> list[str]:
    """The qualified `names` that `targets` selects (the rules above, on names alone); none -> one-line error."""
    if isinstance(targets, str) and targets == "all-linear":
        chosen = list(names)
    elif isinstance(targets, str) and not _NAME.fullmatch(targets):
        try:
            pattern = re.compile(targets)
        except re.error as e:
            raise AmploraError(f"targets {targets!r} is not a valid regex: {e}") from None
        chosen = [n for n in names if pattern.fullmatch(n)]
    else:
        wanted = [targets] if isinstance(targets, str) else list(targets)
        chosen = [n for n in names if any(n == t or n.endswith("." + t) for t in wanted)]
    if not chosen:
        leaves = sorted({n.rsplit(".", 1)[-1] for n in names})
        example = names[0] if names else "none"
        raise AmploraError(f"targets {targets!r} matched no Linear module; Linear modules here: "
                           f"{', '.join(leaves) or 'none'} (e.g. {example}); use 'all-linear', suffixes or a regex")
    return chosen


def set_module(model: nn.Module, name: str, new: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    parent = model.get_submodule(parent_name) if parent_name else model
    setattr(parent, child, new)
