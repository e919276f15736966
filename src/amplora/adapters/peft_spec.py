"""An amplora model's adapter as PEFT's adapter_config.json says it: target_modules as the user asked for them,
rank_pattern / alpha_pattern, modules_to_save and bias, checked to select exactly the modules amplora adapted."""
from __future__ import annotations

import math
import re

import torch.nn as nn

from amplora.adapters import peft_config, peft_rules, quant, targets as targets_mod
from amplora.adapters.apply import AdapterConfig, lora_layers


def exact_key(path: str) -> str:
    """A rank_pattern / alpha_pattern key that matches module `path` alone (PEFT: `(.*\\.)?(key)$`)."""
    return "^" + re.escape(path)


def module_names(model: nn.Module) -> tuple[list[str], set[str]]:
    """The model's module names as PEFT sees the base model (nothing inside an adapter layer), and the ones
    "all-linear" stands for (Linear modules but the output head)."""
    layers = lora_layers(model)
    inner = tuple(p + "." for p in layers)
    names = [n for n, _ in model.named_modules() if n and not n.startswith(inner)]
    return names, set(layers) | set(targets_mod.candidate_linears(model))


def _fused_experts(model: nn.Module) -> bool:
    """Whether the model keeps MoE experts as 3-D parameters (transformers 5's fused experts)."""
    return any(p.dim() == 3 for n, p in model.named_parameters() if "experts" in n)


def _as_peft(targets):
    """amplora's `targets` in PEFT's terms: a single name is a one-element list (PEFT reads a string as a regex)."""
    return [targets] if isinstance(targets, str) and targets_mod.is_name(targets) else targets


def target_spec(model: nn.Module, cfg: AdapterConfig) -> dict:
    """target_modules, exclude_modules, layers_to_transform, layers_pattern as asked, when PEFT reads them as the
    very modules amplora adapted; else the shortest explicit list that does."""
    names, linears = module_names(model)
    spec = {"target_modules": _as_peft(cfg.targets), "exclude_modules": cfg.exclude_modules,
            "layers_to_transform": cfg.layers_to_transform, "layers_pattern": cfg.layers_pattern,
            "modules_to_save": cfg.modules_to_save}
    adapted = set(lora_layers(model))
    leaves = sorted({n.rsplit(".", 1)[-1] for n in adapted})
    # PEFT turns a string or a short name on a fused-experts MoE model (transformers 5) into expert parameters
    # amplora does not adapt (peft/utils/transformers_weight_conversion.py): only full paths say the same there
    fallbacks = (sorted(adapted),) if _fused_experts(model) else (None, leaves, sorted(adapted))
    for fallback in fallbacks:
        if fallback is not None:
            spec.update(target_modules=fallback, exclude_modules=None, layers_to_transform=None, layers_pattern=None)
        if {n for n in names if peft_rules.targeted(n, spec, linears)} == adapted:
            break
    spec.pop("modules_to_save")
    return spec


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12)


def rank_alpha(cfg: AdapterConfig, shapes: dict[str, tuple[int, float]]) -> dict:
    """r, lora_alpha, rank_pattern, alpha_pattern giving each module its saved (rank, alpha) by PEFT's rule: the
    config's own, PiSSA's doubled (saved at rank 2r), and an exact entry first for any module that differs."""
    rank_f, alpha_f = (2, math.sqrt(2) if cfg.rslora else 2) if cfg.init == "pissa" else (1, 1)
    r, alpha = cfg.r * rank_f, cfg.alpha * alpha_f
    ranks = {k: v * rank_f for k, v in cfg.rank_pattern.items()}
    alphas = {k: v * alpha_f for k, v in cfg.alpha_pattern.items()}
    exact_r, exact_a = {}, {}
    for path, (r_m, alpha_m) in sorted(shapes.items()):
        if peft_rules.per_module(path, r, ranks) != r_m:
            exact_r[exact_key(path)] = r_m
        if not _close(peft_rules.per_module(path, alpha, alphas), alpha_m):
            exact_a[exact_key(path)] = alpha_m
    return {"r": r, "lora_alpha": alpha, "rank_pattern": {**exact_r, **ranks}, "alpha_pattern": {**exact_a, **alphas}}


def _fan_in_fan_out(model: nn.Module) -> bool:
    """PEFT's flag for bases storing W as (in, out): transformers Conv1D (GPT-2). PEFT corrects it per module on
    load, so it only has to be right for the adapted layers."""
    return any(quant.from_conv1d(layer.base_layer) for layer in lora_layers(model).values())


def written_config(model: nn.Module, cfg: AdapterConfig, shapes: dict[str, tuple[int, float]],
                   base_model_name_or_path: str | None) -> dict:
    name = base_model_name_or_path or getattr(getattr(model, "config", None), "_name_or_path", None) or None
    return {
        "peft_type": "LORA", "task_type": cfg.task_type, **rank_alpha(cfg, shapes), **target_spec(model, cfg),
        "use_dora": cfg.method == "dora", "use_rslora": cfg.rslora, "lora_dropout": cfg.dropout,
        "bias": cfg.bias, "fan_in_fan_out": _fan_in_fan_out(model), "init_lora_weights": peft_config.INIT_TO_PEFT[cfg.init],
        "inference_mode": True, "base_model_name_or_path": name, "modules_to_save": cfg.modules_to_save,
    }
