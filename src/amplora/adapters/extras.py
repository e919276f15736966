"""What a PEFT adapter file holds besides the adapters: the modules_to_save copies, whole (`<path>.<key>` for each
key of their state dict), and the biases the `bias` option trains (an adapted layer's as `<path>.base_layer.bias`,
any other as `<path>.bias`), with PEFT's key names, so that each side loads what the other saves."""
from __future__ import annotations

from pathlib import Path

import torch
import torch.nn as nn

from amplora.adapters import peft_rules
from amplora.adapters.apply import adapter_config, lora_layers
from amplora.errors import AmploraError

PREFIX = "base_model.model."
_BASE_BIAS = ".base_layer.bias"
# under a modules_to_save module, PEFT's bias='all' also saves the frozen original's and the copy's bias by their
# wrapper paths: the copy's bias is saved by its plain name too, so these are left aside
_WRAPPER_PARTS = ("original_module.", "modules_to_save.")


def state(model: nn.Module, full) -> dict[str, torch.Tensor]:
    """The extra tensors of `model`'s adapter in PEFT key form (`full` gathers a possibly sharded tensor)."""
    cfg = adapter_config(model)
    out = {}
    for path in cfg.saved:
        for key, value in model.get_submodule(path).state_dict().items():
            out[f"{PREFIX}{path}.{key}"] = full(value) if value.is_floating_point() else value.detach()
    if cfg.bias == "lora_only":
        for path, layer in lora_layers(model).items():
            if layer.base_layer.bias is not None:
                out[f"{PREFIX}{path}{_BASE_BIAS}"] = full(layer.base_layer.bias)
    elif cfg.bias == "all":
        inside = tuple(p + "." for p in cfg.saved)  # saved whole above
        for name, p in model.named_parameters():
            if (name == "bias" or name.endswith(".bias")) and not name.startswith(inside):
                out[f"{PREFIX}{name}"] = full(p)
    return out


def split(tensors: dict[str, torch.Tensor], model: nn.Module, options: dict) -> tuple[dict, dict, dict]:
    """(adapter tensors, {saved module path: {state key: tensor}}, {bias key without the prefix: tensor}) from a
    file's tensors, for the fresh `model` the file is loaded onto."""
    saved = peft_rules.saved_modules([n for n, _ in model.named_modules()], options["modules_to_save"])
    copies: dict[str, dict[str, torch.Tensor]] = {path: {} for path in saved}
    biases, rest = {}, {}
    for key, tensor in tensors.items():
        stripped = key.removeprefix(PREFIX)
        owner = next((p for p in saved if stripped.startswith(p + ".")), None)
        if owner is not None:
            inner = stripped[len(owner) + 1:]
            if not inner.startswith(_WRAPPER_PARTS):
                copies[owner][inner] = tensor
        elif options["bias"] != "none" and stripped.endswith(".bias"):
            biases[stripped] = tensor
        else:
            rest[key] = tensor
    return rest, copies, biases


def check(model: nn.Module, copies: dict, biases: dict, adapted: set[str], bias: str, where: Path,
          cfg_where: Path) -> None:
    """Each saved module's file keys are exactly its state dict's, in shape; each bias names a bias of this model
    in PEFT's form. One line naming the key."""
    for path, found in copies.items():
        expected = model.get_submodule(path).state_dict()
        for key in sorted(set(expected) | set(found)):
            name = f"{PREFIX}{path}.{key}"
            if key not in found:
                raise AmploraError(f"{where}: lacks {name} (modules_to_save in {cfg_where} names module {path!r})")
            if key not in expected:
                raise AmploraError(f"{where}: key {name}: module {path!r} has no {key!r}")
            if found[key].shape != expected[key].shape:
                raise AmploraError(f"{where}: key {name} has shape {tuple(found[key].shape)}, this model needs "
                                   f"{tuple(expected[key].shape)}")
    params = dict(model.named_parameters())
    for key, tensor in sorted(biases.items()):
        plain = _plain_name(key, adapted, bias, where)
        if plain not in params:
            raise AmploraError(f"{where}: key {PREFIX}{key}: this model has no bias parameter {plain!r}")
        if tensor.shape != params[plain].shape:
            raise AmploraError(f"{where}: key {PREFIX}{key} has shape {tuple(tensor.shape)}, this model needs "
                               f"{tuple(params[plain].shape)}")


def _plain_name(key: str, adapted: set[str], bias: str, where: Path) -> str:
    """The parameter a bias key names in the model before adapters: an adapted layer's is `.base_layer.bias`."""
    if key.endswith(_BASE_BIAS) and key[: -len(_BASE_BIAS)] in adapted:
        return key[: -len(_BASE_BIAS)] + ".bias"
    module = key[: -len(".bias")]
    if bias == "lora_only" or module in adapted:
        raise AmploraError(f"{where}: key {PREFIX}{key} is not the bias of an adapted module as PEFT names it "
                           f"(<module>{_BASE_BIAS}, with bias={bias!r})")
    return key


def assign(model: nn.Module, copies: dict, biases: dict) -> None:
    """Put the checked values in (after apply: the copies and biases are there, as masters)."""
    params = dict(model.named_parameters())
    with torch.no_grad():
        for path, found in copies.items():
            current = model.get_submodule(path).state_dict()
            for key, tensor in found.items():
                current[key].copy_(tensor)
        for key, tensor in biases.items():
            params[key].copy_(tensor)
