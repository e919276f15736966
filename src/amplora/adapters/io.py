"""Adapter files in PEFT's format: `adapter_config.json` + `adapter_model.safetensors`.

Keys are `base_model.model.<module path>.lora_A.weight` (r, in), `.lora_B.weight` (out, r) and, for DoRA,
`.lora_magnitude_vector` (out,). Writes are atomic (temp directory, then rename), refuse NaN/Inf and give every
file the permissions the user's umask allows. Reads check the config and every tensor before anything is applied:
bad input is a one-line AmploraError naming the file and the key; nothing is unpickled.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import struct
import tempfile
from pathlib import Path

import torch
import torch.nn as nn
from safetensors import safe_open
from safetensors.torch import save_file

from amplora.adapters import quant, targets as targets_mod
from amplora.adapters.apply import adapter_config, apply, lora_layers
from amplora.errors import AmploraError
from amplora.precision import Precision

PREFIX = "base_model.model."
CONFIG_NAME = "adapter_config.json"
WEIGHTS_NAME = "adapter_model.safetensors"
SUFFIXES = ("lora_A.weight", "lora_B.weight", "lora_magnitude_vector")
# A PEFT config is a few KB; anything far larger is not one (and is not read into memory whole).
MAX_CONFIG_BYTES = 1 << 20
# safetensors' own limit on the JSON header; checked before the library is handed the file.
MAX_HEADER_BYTES = 100_000_000
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


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
        "bias": "none", "fan_in_fan_out": _fan_in_fan_out(model), "init_lora_weights": True, "inference_mode": True,
        "base_model_name_or_path": name, "modules_to_save": None,
    }


def _fan_in_fan_out(model: nn.Module) -> bool:
    """PEFT's flag for bases storing W as (in, out): transformers Conv1D (GPT-2). PEFT corrects it per module on
    load, so it only has to be right for the adapted layers."""
    return any(quant.from_conv1d(layer.base_layer) for layer in lora_layers(model).values())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def follow_umask(root: str | os.PathLike) -> None:
    """Give `root` and everything under it the permissions a plain `open()`/`mkdir` would have: safetensors (and
    so save_pretrained) writes 0600 files via a private temp file, mkdtemp makes 0700 directories."""
    mask = _umask()
    root = Path(root)
    os.chmod(root, 0o777 & ~mask)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o777 & ~mask)
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, 0o666 & ~mask)


def save_adapter(model: nn.Module, directory: str | os.PathLike, base_model_name_or_path: str | None = None,
                 write: bool = True) -> Path | None:
    """Write a PEFT-loadable adapter directory atomically; NaN/Inf weights are refused, nothing is written.
    Files and the directory get the permissions the umask allows (0644/0755 under umask 022).
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
        save_file(state, str(tmp / WEIGHTS_NAME), metadata={"format": "pt"})
        (tmp / CONFIG_NAME).write_text(json.dumps(_peft_config(model, base_model_name_or_path), indent=2) + "\n")
        follow_umask(tmp)
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


def _show(value, limit: int = 200) -> str:
    """A value for an error message: repr, cut short (a config value can be megabytes)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_type(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")  # Python's json accepts NaN/Infinity; the standard does not


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_config(config, where: Path) -> dict:
    """Validate the fields amplora reads from an adapter_config.json and refuse the PEFT features it would silently
    drop; returns the normalized settings. PEFT's many other fields are ignored."""
    if not isinstance(config, dict):
        raise AmploraError(f"{where}: must hold a JSON object, not {_json_type(config)}")

    def bad(key: str, want: str):
        raise AmploraError(f"{where}: key {key!r} must be {want}, got {_show(config[key])}")

    def present(key: str) -> bool:  # PEFT writes null for an unset optional field
        return config.get(key) is not None

    if config.get("peft_type", "LORA") != "LORA":
        raise AmploraError(f"{where}: key 'peft_type' {_show(config.get('peft_type'))} is not LORA "
                           "(amplora loads LoRA and DoRA adapters)")
    r = config.get("r")
    if present("r") and (not isinstance(r, int) or isinstance(r, bool) or r <= 0):
        bad("r", "a positive integer")
    alpha = config.get("lora_alpha")
    if present("lora_alpha") and (not _is_number(alpha) or not math.isfinite(alpha) or alpha <= 0):
        bad("lora_alpha", "a finite positive number")
    dropout = config.get("lora_dropout")
    if present("lora_dropout") and (not _is_number(dropout) or not 0.0 <= dropout < 1.0):
        bad("lora_dropout", "a number in [0, 1)")
    # fan_in_fan_out is checked but not used: PEFT sets it per module from the base's type (Conv1D or not)
    for key in ("use_dora", "use_rslora", "fan_in_fan_out", "lora_bias"):
        if present(key) and not isinstance(config[key], bool):
            bad(key, "true or false")
    for key in ("base_model_name_or_path", "bias"):
        if present(key) and not isinstance(config[key], str):
            bad(key, "a string")
    target = config.get("target_modules")
    if present("target_modules") and not (isinstance(target, str) or (
            isinstance(target, list) and all(isinstance(t, str) for t in target))):
        bad("target_modules", "a string or a list of strings")
    # features amplora does not implement: loading would drop them and give a different model than PEFT's
    for key, kind in (("rank_pattern", dict), ("alpha_pattern", dict), ("modules_to_save", list),
                      ("layer_replication", list)):
        if present(key) and not isinstance(config[key], kind):
            bad(key, f"{'an object' if kind is dict else 'a list'} or null")
        if config.get(key):
            raise AmploraError(f"{where}: key {key!r} is set ({_show(config[key])}); amplora does not load adapters "
                               "that use it")
    if config.get("bias", "none") not in ("none", None):
        raise AmploraError(f"{where}: key 'bias' is {_show(config['bias'])}; amplora loads bias='none' adapters only")
    if config.get("lora_bias"):
        raise AmploraError(f"{where}: key 'lora_bias' is true; amplora does not load adapters with a LoRA bias")
    return {"r": r, "alpha": alpha, "dropout": float(dropout or 0.0), "dora": bool(config.get("use_dora")),
            "rslora": bool(config.get("use_rslora")), "base": config.get("base_model_name_or_path")}


def _absent(path: Path) -> str:
    """Why `path` cannot be read as a file: missing, or something else (a FIFO or device is never opened)."""
    return "not a regular file" if path.exists() else "not found"


def read_config(directory: str | os.PathLike) -> dict:
    """The checked adapter_config.json of an adapter directory (the raw dict); one-line errors naming the file."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise AmploraError(f"{d}: not a directory (an adapter is a directory holding {CONFIG_NAME} and "
                           f"{WEIGHTS_NAME})")
    cfg_path = d / CONFIG_NAME
    if not cfg_path.is_file():
        raise AmploraError(f"{cfg_path}: {_absent(cfg_path)} (is {d} an adapter directory?)")
    try:
        with open(cfg_path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise AmploraError(f"{cfg_path}: cannot read: {e.strerror or e}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise AmploraError(f"{cfg_path}: over {MAX_CONFIG_BYTES} bytes, too large for an adapter config")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise AmploraError(f"{cfg_path}: not UTF-8 text (bad byte at offset {e.start})") from None
    try:
        config = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise AmploraError(f"{cfg_path}: invalid JSON: nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, NaN/Infinity, integers too long to convert
        raise AmploraError(f"{cfg_path}: invalid JSON: {_show(str(e))}") from None
    check_config(config, cfg_path)
    return config


def _check_header(weights: Path) -> None:
    """The 8-byte header length must fit the file: safetensors would otherwise be asked to allocate whatever a
    damaged or hostile file declares."""
    size = weights.stat().st_size
    with open(weights, "rb") as f:
        head = f.read(8)
    if len(head) < 8:
        raise AmploraError(f"{weights}: not a safetensors file ({size} bytes, shorter than its 8-byte header length)")
    (n,) = struct.unpack("<Q", head)
    if n > min(size - 8, MAX_HEADER_BYTES):
        raise AmploraError(f"{weights}: not a readable safetensors file (declares a {n}-byte header in a "
                           f"{size}-byte file)")


def read_adapter(directory: str | os.PathLike) -> tuple[dict, dict[str, torch.Tensor]]:
    """(config dict, tensors) from an adapter directory, both checked: the config's fields (check_config) and every
    tensor floating point and finite. One-line errors naming the file and the key; nothing is unpickled."""
    d = Path(directory)
    config = read_config(d)
    weights = d / WEIGHTS_NAME
    if not weights.is_file():
        alt = "adapter_model.bin" if (d / "adapter_model.bin").exists() else None
        raise AmploraError(f"{weights}: {_absent(weights)}" + (" (pickled .bin adapters are not loaded: use safetensors)"
                                                        if alt else ""))
    try:
        _check_header(weights)
        with safe_open(str(weights), framework="pt") as f:
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except AmploraError:
        raise
    except Exception as e:  # safetensors raises several types for a damaged header or body
        raise AmploraError(f"{weights}: not a readable safetensors file "
                           f"({type(e).__name__}: {_show(str(e).splitlines()[0] if str(e) else '')})") from None
    for key, tensor in tensors.items():
        if tensor.dtype not in FLOAT_DTYPES:
            raise AmploraError(f"{weights}: key {_show(key)} has dtype {str(tensor.dtype).replace('torch.', '')}; "
                               "adapter weights are float16, bfloat16, float32 or float64")
        if not torch.isfinite(tensor).all():
            raise AmploraError(f"{weights}: key {_show(key)} has NaN/Inf values")
    return config, tensors


def _group_by_module(tensors: dict[str, torch.Tensor], where: Path) -> dict[str, dict[str, torch.Tensor]]:
    modules: dict[str, dict[str, torch.Tensor]] = {}
    for key in sorted(tensors):
        stripped = key.removeprefix(PREFIX)
        suffix = next((s for s in SUFFIXES if stripped.endswith("." + s)), None)
        if suffix is None and stripped.endswith(".lora_magnitude_vector.weight"):
            suffix = "lora_magnitude_vector.weight"
        if suffix is None:
            raise AmploraError(f"{where}: key {_show(key)} is not a LoRA/DoRA weight amplora can load")
        path = stripped[: -len(suffix) - 1]
        name = suffix.replace(".weight", "") if "magnitude" in suffix else suffix
        if name in modules.setdefault(path, {}):  # with and without the prefix, or both magnitude spellings
            raise AmploraError(f"{where}: key {_show(key)} duplicates another key for module {_show(path)}")
        modules[path][name] = tensors[key]
    return modules


def load_adapter(model: nn.Module, directory: str | os.PathLike, precision: str | Precision = "auto",
                 quantize: str | None = None, trainable: bool = False) -> nn.Module:
    """Apply a PEFT- or amplora-made adapter to a plain model, in place. The config and every tensor are checked
    first (a bad one is a one-line error naming the file and the key; the model is left untouched), as is every
    module's fit with this model (a file made for another base names the first bad key)."""
    where = Path(directory) / WEIGHTS_NAME
    cfg_where = Path(directory) / CONFIG_NAME
    config, tensors = read_adapter(directory)
    settings = check_config(config, cfg_where)
    modules = _group_by_module(tensors, where)
    if not modules:
        raise AmploraError(f"{where}: holds no adapter weights")
    linears = targets_mod.candidate_linears(model)
    dora = settings["dora"]
    r = None
    for path, parts in modules.items():
        key = f"{PREFIX}{path}.lora_A.weight"
        if path not in linears:
            raise AmploraError(f"{where}: key {_show(key)}: this model has no Linear module {_show(path)} "
                               "(adapter made for another base?)")
        missing = [s for s in ("lora_A.weight", "lora_B.weight") + (("lora_magnitude_vector",) if dora else ())
                   if s not in parts]
        if missing:
            raise AmploraError(f"{where}: module {path!r} lacks {PREFIX}{path}.{missing[0]}")
        if "lora_magnitude_vector" in parts and not dora:
            raise AmploraError(f"{where}: key {PREFIX}{path}.lora_magnitude_vector is a DoRA weight but "
                               f"{cfg_where} does not set use_dora")
        (n_in, n_out), a = quant.features(linears[path]), parts["lora_A.weight"]
        r = (a.shape[0] if a.dim() == 2 else 0) if r is None else r
        if r == 0:
            raise AmploraError(f"{where}: key {key} has shape {tuple(a.shape)}, not (rank >= 1, {n_in})")
        expect = {"lora_A.weight": (r, n_in), "lora_B.weight": (n_out, r), "lora_magnitude_vector": (n_out,)}
        for suffix, tensor in parts.items():
            if tuple(tensor.shape) != expect[suffix]:
                raise AmploraError(f"{where}: key {PREFIX}{path}.{suffix} has shape {tuple(tensor.shape)}, "
                                   f"this model needs {expect[suffix]} (adapter made for another base?)")
        width = min(n_in, n_out)
        if settings["r"] is not None and settings["r"] > width:  # would scale the update down to nothing
            raise AmploraError(f"{cfg_where}: key 'r' is {settings['r']}, larger than module {path!r} allows "
                               f"(min(in, out) = {width})")
    cfg_r = settings["r"] if settings["r"] is not None else r
    alpha = float(settings["alpha"] if settings["alpha"] is not None else cfg_r)
    if cfg_r != r:  # keep PEFT's scaling (alpha / config r) when the tensors' rank differs from the config's
        alpha = alpha * r / cfg_r if not settings["rslora"] else alpha * math.sqrt(r / cfg_r)
    scaling = alpha / math.sqrt(r) if settings["rslora"] else alpha / r
    fp32_max = torch.finfo(torch.float32).max
    for path, parts in modules.items():
        peak = {suffix: float(t.abs().max()) for suffix, t in parts.items()}
        for suffix, value in peak.items():  # float64 values past fp32's range would become Inf in the fp32 adapter
            if not value <= fp32_max:
                raise AmploraError(f"{where}: key {PREFIX}{path}.{suffix} has values beyond float32's range")
        # |scaling * B @ A| <= scaling * r * max|B| * max|A|: past fp32's range the merged weight is not finite
        bound = scaling * r * peak["lora_B.weight"] * peak["lora_A.weight"]
        if not bound < fp32_max:
            raise AmploraError(f"{where}: module {path!r}: lora_A/lora_B values so large that the update "
                               "overflows float32")
    apply(model, method="dora" if dora else "lora", r=r, alpha=alpha, targets=sorted(modules),
          dropout=settings["dropout"], quantize=quantize, precision=precision, rslora=settings["rslora"])
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
