"""Weights a `device_map` offloaded: accelerate keeps them on the meta device and brings them in only inside their
module's forward, so anything done to them outside it (a copy, `.to()`, a cast) meets tensors without data."""
from __future__ import annotations

import torch.nn as nn


def offloaded(roots) -> tuple[dict[str, str], list[str]]:
    """({device_map key: where} for the keys whose weights sit on meta, [those weights' names]) of the first root
    loaded with an offloading device_map; ({}, []) when none is."""
    for root in roots:
        device_map = getattr(root, "hf_device_map", None)
        if not isinstance(root, nn.Module) or not isinstance(device_map, dict):
            continue
        meta = [n for n, t in list(root.named_parameters()) + list(root.named_buffers()) if t.device.type == "meta"]
        keys = {k: str(v) for k, v in device_map.items()
                if any(n == k or n.startswith(f"{k}.") or not k for n in meta)}
        if meta and keys:
            return keys, meta
    return {}, []


def explain(keys: dict[str, str], names: list[str], listed: str) -> tuple[str, str, str]:
    """Culprit, cause and fix for a fault met on offloaded weights (`listed`: the names, shortened)."""
    places = ", ".join(f"{k or '(all)'} → {v}" for k, v in list(keys.items())[:3])
    culprit = f"{len(names)} weight(s) offloaded by device_map ({places}) are still meta placeholders: {listed}"
    cause = (f"{names[0]} was offloaded by the model's `device_map` ({places}): accelerate keeps offloaded "
             "weights on the meta device and loads them only inside their module's forward, so copying, moving "
             "or casting them outside it finds no data.")
    fix = ("Save with `model.save_pretrained(dir)` (it reads offloaded weights back) or take them with "
           "`accelerate.utils.get_state_dict_offloaded_model(model)`; to move, cast or train the whole model, "
           "load it without offloading (a `device_map` with room for every module, or none).")
    return culprit, cause, fix
