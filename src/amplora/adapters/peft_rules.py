"""PEFT's rules for which modules a LoraConfig touches, on qualified module names alone, as PEFT 0.21 applies them
(peft/tuners/tuners_utils.py check_target_module_exists, peft/utils/other.py get_pattern_key and _set_trainable).

Reproduced rather than imported: PEFT is not a dependency of amplora, and an adapter file must mean the same module
set, rank and alpha to both.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from amplora.errors import AmploraError


# how each option's strings are used in a regex (PEFT's templates): the matchers below use them, and each user
# string must compile inside its own (check_regexes)
TEMPLATES = {
    "target_modules": "{}", "exclude_modules": "{}",
    "rank_pattern": r"(.*\.)?({})$", "alpha_pattern": r"(.*\.)?({})$",
    "modules_to_save": r"(^|.*\.){}($|\..*)",
    "layers_pattern": r"(?:^|.*?\.){}\.(?P<idx>\d+)\.",
}


@functools.lru_cache(maxsize=4096)  # one per key: a model's hundreds of keys would thrash re's own cache
def _pattern(key: str) -> re.Pattern:
    return re.compile(TEMPLATES["rank_pattern"].format(key))


def pattern_key(patterns: Iterable[str], name: str) -> str | None:
    """The first `rank_pattern` / `alpha_pattern` key that matches module `name` (a regex on its whole name or on
    a dotted suffix of it), or None."""
    for key in patterns:
        if _pattern(key).match(name):
            return key
    return None


def per_module(name: str, default, pattern: dict):
    key = pattern_key(pattern, name)
    return default if key is None else pattern[key]


def excluded(name: str, exclude: str | Sequence[str] | None) -> bool:
    """`exclude_modules`: a string is a regex on the whole name; a list, names or dotted suffixes."""
    if not exclude:
        return False
    if isinstance(exclude, str):
        return re.fullmatch(exclude, name) is not None
    return name in exclude or any(name.endswith("." + e) for e in exclude)


def inside_saved(name: str, modules_to_save: Sequence[str] | None) -> bool:
    """A module in (or under) a `modules_to_save` entry never gets an adapter."""
    return any(re.match(TEMPLATES["modules_to_save"].format(m), name) for m in modules_to_save or ())


def saved_modules(names: Sequence[str], modules_to_save: Sequence[str] | None) -> list[str]:
    """The modules `modules_to_save` copies: names that end with an entry (a plain string suffix, as PEFT has it)."""
    return [n for n in names if n and any(n.endswith(m) for m in modules_to_save or ())]


def layer_index(name: str, layers_pattern: str | Sequence[str] | None) -> int | None:
    """The index of the layer stack entry `name` sits in (the first numbered segment, or the one after a
    `layers_pattern` name), or None."""
    if not layers_pattern:
        match = re.match(r".*?\.[^.]*\.(?P<idx>\d+)\.", name)
    else:
        match = None
        for pattern in [layers_pattern] if isinstance(layers_pattern, str) else layers_pattern:
            match = re.match(TEMPLATES["layers_pattern"].format(pattern), name)
            if match is not None:
                break
    return int(match.group("idx")) if match else None


def in_layers(name: str, layers_to_transform: int | Sequence[int] | None, layers_pattern=None) -> bool:
    if layers_to_transform is None or (not isinstance(layers_to_transform, int) and len(layers_to_transform) == 0):
        return True
    index = layer_index(name, layers_pattern)
    if index is None:
        return False
    return index == layers_to_transform if isinstance(layers_to_transform, int) else index in layers_to_transform


def targeted(name: str, spec: dict, linears: set[str]) -> bool:
    """Whether PEFT adapts module `name` under `spec` (target_modules, exclude_modules, modules_to_save,
    layers_to_transform, layers_pattern); `linears`: the names "all-linear" stands for."""
    if excluded(name, spec.get("exclude_modules")) or inside_saved(name, spec.get("modules_to_save")):
        return False
    target = spec.get("target_modules")
    if target is None:
        return False
    if isinstance(target, str) and target.lower() == "all-linear":
        target = linears
    if isinstance(target, str):
        return re.fullmatch(target, name) is not None
    if name in target:
        return True
    return (any(name.endswith("." + t) for t in target)
            and in_layers(name, spec.get("layers_to_transform"), spec.get("layers_pattern")))


def check_regexes(where: str, values: dict) -> None:
    """Each regex in the options of `values` compiles the way PEFT uses it; else one line naming the option."""
    for key, value in values.items():
        if key not in TEMPLATES:
            continue
        if isinstance(value, dict):
            value = list(value)
        elif not isinstance(value, (str, list)):
            continue
        if key == "target_modules" and (not isinstance(value, str) or value.lower() == "all-linear"):
            continue  # names, not regexes
        if key == "exclude_modules" and not isinstance(value, str):
            continue
        for pattern in [value] if isinstance(value, str) else value:
            try:
                re.compile(TEMPLATES[key].format(pattern))
            except (re.error, RecursionError, OverflowError) as e:
                raise AmploraError(f"{where}{key!r} entry {pattern!r} is not a valid regex here: {e}") from None
