"""Adapter files in PEFT's format: `adapter_config.json` + `adapter_model.safetensors`.

Keys are `base_model.model.<module path>.lora_A.weight` (r, in), `.lora_B.weight` (out, r) and, for DoRA,
`.lora_magnitude_vector` (out,). Writes are atomic (temp directory, then rename) and refuse NaN/Inf.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from pathlib import Path

import torch
import torch.nn as nn
from safetensors import safe_open
from safetensors.torch import save_file

from amplora.adapters import targets as targets_mod
from amplora.adapters.apply import adapter_config, apply, lora_layers
from amplora.errors import AmploraError
from amplora.precision import Precision

PREFIX = "base_model.model."
CONFIG_NAME = "adapter_config.json"
WEIGHTS_NAME = "adapter_model.safetensors"
SUFFIXES = ("lora_A.weight", "lora_B.weight", "lora_magnitude_vector")


def _full(t: torch.Tensor) -> torch.Tensor:
    """A plain tensor from a possibly sharded one (FSDP2 DTensor: a collective, so every rank must call this)."""
    return (t.full_tensor() if hasattr(t, "full_tensor") else t).detach().float()


def adapter_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    """The adapter weights in PEFT key form, fp32 on CPU. PiSSA adapters are saved as the equivalent plain-LoRA
    delta against the original base (rank 2r), as PEFT does, so they apply to the unmodified model.
    Under FSDP2 every rank must call this (it gathers shards); only one should write them."""
    state = {}
    for path, layer in lora_layers(model).items():
        a, b = _full(layer.lora_A.weight), _full(layer.lora_B.weight)
        if getattr(layer, "pissa_A0", None) is not None:
            a, b = torch.cat([a, layer.pissa_A0.float()], 0), torch.cat([b, -layer.pissa_B0.float()], 1)
        state[f"{PREFIX}{path}.lora_A.weight"] = a
        state[f"{PREFIX}{path}.lora_B.weight"] = b
        if layer.dora:
            state[f"{PREFIX}{path}.lora_magnitude_vector"] = _full(layer.lora_magnitude_vector)
    return {k: v.cpu().contiguous() for k, v in state.items()}


def _peft_config(model: nn.Module, base_model_name_or_path: str | None) -> dict:
    cfg = adapter_config(model)
    r, alpha = cfg.r, cfg.alpha
    if cfg.init == "pissa":  # saved as rank 2r: keep the same scaling
        r, alpha = 2 * r, alpha * (math.sqrt(2) if cfg.rslora else 2)
    name = base_model_name_or_path or getattr(getattr(model, "config", None), "_name_or_path", None) or None
    return {
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "r": r, "lora_alpha": alpha,
        "target_modules": targets_mod.peft_target_modules(model, cfg.targets),
        "use_dora": cfg.method == "dora", "use_rslora": cfg.rslora, "lora_dropout": cfg.dropout,
        "bias": "none", "fan_in_fan_out": False, "init_lora_weights": True, "inference_mode": True,
        "base_model_name_or_path": name, "modules_to_save": None,
    }


def save_adapter(model: nn.Module, directory: str | os.PathLike, base_model_name_or_path: str | None = None,
                 write: bool = True) -> Path | None:
    """Write a PEFT-loadable adapter directory atomically; NaN/Inf weights are refused, nothing is written.
    Distributed: every rank calls it (shards are gathered), with write=True on one rank only."""
    if adapter_config(model) is None:
        raise AmploraError("model has no amplora adapters to save (call amplora.apply first)")
    state = adapter_state_dict(model)
    for key, tensor in state.items():
        if not torch.isfinite(tensor).all():
            raise AmploraError(f"refusing to save a non-finite adapter: {key} has NaN/Inf values")
    if not write:
        return None
    target = Path(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700; the adapter dir should get the usual permissions
        save_file(state, str(tmp / WEIGHTS_NAME), metadata={"format": "pt"})
        (tmp / CONFIG_NAME).write_text(json.dumps(_peft_config(model, base_model_name_or_path), indent=2) + "\n")
        if target.exists():  # replace: move the old one aside first so a crash never leaves neither
            old = target.with_name(f".{target.name}.old-{os.getpid()}")
            target.rename(old)
            tmp.rename(target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def read_adapter(directory: str | os.PathLike) -> tuple[dict, dict[str, torch.Tensor]]:
    """(config dict, tensors) from an adapter directory; one-line errors naming the file."""
    d = Path(directory)
    cfg_path, weights = d / CONFIG_NAME, d / WEIGHTS_NAME
    if not cfg_path.is_file():
        raise AmploraError(f"{cfg_path}: not found (is {d} an adapter directory?)")
    try:
        config = json.loads(cfg_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise AmploraError(f"{cfg_path}: invalid JSON: {e}") from None
    if not isinstance(config, dict) or config.get("peft_type", "LORA") != "LORA":
        raise AmploraError(f"{cfg_path}: peft_type {config.get('peft_type')!r} is not LORA")
    if not weights.is_file():
        alt = "adapter_model.bin" if (d / "adapter_model.bin").exists() else None
        raise AmploraError(f"{weights}: not found" + (" (pickled .bin adapters are not loaded: use safetensors)"
                                                        if alt else ""))
    try:
        with safe_open(str(weights), framework="pt") as f:
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as e:  # safetensors raises several types for a damaged header or body
        raise AmploraError(f"{weights}: not a readable safetensors file ({type(e).__name__}: {e})") from None
    return config, tensors


def _group_by_module(tensors: dict[str, torch.Tensor], where: Path) -> dict[str, dict[str, torch.Tensor]]:
    modules: dict[str, dict[str, torch.Tensor]] = {}
    for key in sorted(tensors):
        stripped = key.removeprefix(PREFIX)
        suffix = next((s for s in SUFFIXES if stripped.endswith("." + s)), None)
        if suffix is None and stripped.endswith(".lora_magnitude_vector.weight"):
            suffix = "lora_magnitude_vector.weight"
        if suffix is None:
            raise AmploraError(f"{where}: key {key!r} is not a LoRA/DoRA weight amplora can load")
        path = stripped[: -len(suffix) - 1]
        modules.setdefault(path, {})[suffix.replace(".weight", "") if "magnitude" in suffix else suffix] = tensors[key]
    return modules


def load_adapter(model: nn.Module, directory: str | os.PathLike, precision: str | Precision = "auto",
                 quantize: str | None = None, trainable: bool = False) -> nn.Module:
    """Apply a PEFT- or amplora-made adapter to a plain model, in place. A file made for another base is a
    one-line error naming the first bad key."""
    where = Path(directory) / WEIGHTS_NAME
    config, tensors = read_adapter(directory)
    modules = _group_by_module(tensors, where)
    if not modules:
        raise AmploraError(f"{where}: holds no adapter weights")
    linears = targets_mod.candidate_linears(model)
    dora = bool(config.get("use_dora", False))
    r = None
    for path, parts in modules.items():
        key = f"{PREFIX}{path}.lora_A.weight"
        if path not in linears:
            raise AmploraError(f"{where}: key {key!r}: this model has no Linear module {path!r} "
                               "(adapter made for another base?)")
        missing = [s for s in ("lora_A.weight", "lora_B.weight") + (("lora_magnitude_vector",) if dora else ())
                   if s not in parts]
        if missing:
            raise AmploraError(f"{where}: module {path!r} lacks {PREFIX}{path}.{missing[0]}")
        lin, a, b = linears[path], parts["lora_A.weight"], parts["lora_B.weight"]
        r = a.shape[0] if r is None else r
        expect = {"lora_A.weight": (r, lin.in_features), "lora_B.weight": (lin.out_features, r),
                  "lora_magnitude_vector": (lin.out_features,)}
        for suffix, tensor in parts.items():
            if tuple(tensor.shape) != expect[suffix]:
                raise AmploraError(f"{where}: key {PREFIX}{path}.{suffix} has shape {tuple(tensor.shape)}, "
                                   f"this model needs {expect[suffix]} (adapter made for another base?)")
    alpha = float(config.get("lora_alpha", config.get("r", r)))
    cfg_r = int(config.get("r", r))
    if cfg_r != r:  # keep PEFT's scaling (alpha / config r) when the tensors' rank differs from the config's
        alpha = alpha * r / cfg_r if not config.get("use_rslora") else alpha * math.sqrt(r / cfg_r)
    apply(model, method="dora" if dora else "lora", r=r, alpha=alpha, targets=sorted(modules),
          dropout=float(config.get("lora_dropout", 0.0) or 0.0), quantize=quantize, precision=precision,
          rslora=bool(config.get("use_rslora", False)))
    layers = lora_layers(model)
    with torch.no_grad():
        for path, parts in modules.items():
            layer = layers[path]
            layer.lora_A.weight.copy_(parts["lora_A.weight"])
            layer.lora_B.weight.copy_(parts["lora_B.weight"])
            if dora:
                layer.lora_magnitude_vector.copy_(parts["lora_magnitude_vector"])
    for _, p in model.named_parameters():
        if p.requires_grad:
            p.requires_grad_(trainable)
    return model
