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

from amplora import atomic
from amplora.adapters import extras, peft_config, peft_rules, peft_spec, quant, targets as targets_mod
from amplora.adapters.apply import adapter_config, apply, lora_layers
from amplora.errors import AmploraError
from amplora.precision import Precision

PREFIX = "base_model.model."
CONFIG_NAME = "adapter_config.json"
WEIGHTS_NAME = "adapter_model.safetensors"
CHAT_TEMPLATE_NAME = "chat_template.jinja"  # the file name transformers gives a tokenizer's template
SUFFIXES = ("lora_A.weight", "lora_B.weight", "lora_magnitude_vector")
# A PEFT config is a few KB; anything far larger is not one (and is not read into memory whole).
MAX_CONFIG_BYTES = 1 << 20
# safetensors' own limit on the JSON header; checked before the library is handed the file.
MAX_HEADER_BYTES = 100_000_000
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _full(t: torch.Tensor) -> torch.Tensor:
    """A plain tensor from a possibly sharded one (FSDP2 DTensor: a collective, so every rank must call this)."""
    return (t.full_tensor() if hasattr(t, "full_tensor") else t).detach().float()


def _saved_shape(layer) -> tuple[int, float]:
    """A layer's (rank, alpha) as saved: PiSSA's at rank 2r with the same scaling."""
    if getattr(layer, "pissa_A0", None) is None:
        return layer.r, layer.alpha
    return 2 * layer.r, layer.alpha * (math.sqrt(2) if layer.rslora else 2)


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
    state.update(extras.state(model, _full))
    return {k: v.cpu().contiguous() for k, v in state.items()}


def _peft_config(model: nn.Module, base_model_name_or_path: str | None) -> dict:
    shapes = {path: _saved_shape(layer) for path, layer in lora_layers(model).items()}
    return peft_spec.written_config(model, adapter_config(model), shapes, base_model_name_or_path)


def checked_state(model: nn.Module, state: dict[str, torch.Tensor] | None = None) -> dict[str, torch.Tensor]:
    """`state` (default: the model's adapter_state_dict), refused with a one-line error if the model has no
    adapters or a tensor holds NaN/Inf: a file that cannot be trained or served from is never written."""
    if adapter_config(model) is None:
        raise AmploraError("model has no amplora adapters to save (call amplora.apply first)")
    state = adapter_state_dict(model) if state is None else state
    for key, tensor in state.items():
        if tensor.is_floating_point() and not torch.isfinite(tensor).all():
            raise AmploraError(f"refusing to save a non-finite adapter: {key} has NaN/Inf values")
    return state


def _write_adapter(model: nn.Module, state: dict, directory: Path, base_model_name_or_path: str | None) -> None:
    save_file(state, str(directory / WEIGHTS_NAME), metadata={"format": "pt"})
    (directory / CONFIG_NAME).write_text(json.dumps(_peft_config(model, base_model_name_or_path), indent=2) + "\n")


def save_adapter(model: nn.Module, directory: str | os.PathLike, base_model_name_or_path: str | None = None,
                 write: bool = True, chat_template: str | None = None) -> Path | None:
    """Write a PEFT-loadable adapter directory atomically; NaN/Inf weights are refused, nothing is written.
    Files and the directory get the permissions the umask allows (0644/0755 under umask 022).
    chat_template: the template the adapter was trained with, when it is not the base tokenizer's own; written
    beside it as chat_template.jinja (`amplora generate`/`chat`/`eval` use it; read_chat_template reads it).
    Distributed: every rank calls it (shards are gathered), with write=True on one rank only."""
    state = checked_state(model)
    if not write:
        return None
    target = Path(directory)
    with atomic.directory(target) as tmp:
        _write_adapter(model, state, tmp, base_model_name_or_path)
        if chat_template is not None:
            (tmp / CHAT_TEMPLATE_NAME).write_text(chat_template, encoding="utf-8")
    return target


def save_adapter_into(model: nn.Module, directory: str | os.PathLike, base_model_name_or_path: str | None = None,
                      extra: dict[str, dict[str, torch.Tensor]] | None = None) -> Path:
    """The adapter files (and `extra`: file name -> tensors, as safetensors) written into `directory`, which may
    hold other files: each one is written next to its place and renamed over it, the rest of the directory is left
    alone (save_adapter replaces the whole directory, which would take a Trainer's checkpoints with it)."""
    state = checked_state(model)
    target = Path(directory)
    try:
        target.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".amplora.tmp-", dir=target))
    except OSError as e:
        raise atomic.write_error(target, e) from None
    try:
        _write_adapter(model, state, tmp, base_model_name_or_path)
        for name, tensors in (extra or {}).items():
            save_file(tensors, str(tmp / name), metadata={"format": "pt"})
        atomic.follow_umask(tmp)
        for path in sorted(tmp.iterdir(), key=lambda p: p.name == CONFIG_NAME):  # the config last: it marks an adapter
            os.replace(path, target / path.name)
    except BaseException as e:
        reason = atomic.write_failure(e, tmp)  # before the cleanup frees the space a full disk lacked
        shutil.rmtree(tmp, ignore_errors=True)
        if reason is None:
            raise
        raise atomic.WriteFailed(target, reason) from None
    shutil.rmtree(tmp, ignore_errors=True)
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


def _refuse_unsupported(config: dict, where: Path) -> None:
    """PEFT fields that would give another model than PEFT's if dropped: refused by name when set."""
    known = set(peft_config.HONORED) | set(peft_config.IGNORED) | set(peft_config.REFUSED)
    for key, value in config.items():
        if key in peft_config.REFUSED and not peft_config.is_default(value):
            raise AmploraError(f"{where}: key {key!r} is set ({_show(value)}); amplora does not load adapters "
                               f"that use it ({peft_config.REFUSED[key]})")
        if key not in known and not peft_config.is_default(value):
            raise AmploraError(f"{where}: key {_show(key)} is set ({_show(value)}) but is no LoraConfig field "
                               "amplora knows; refusing rather than ignoring it")
    init = config.get("init_lora_weights", True)
    why = peft_config.refused_init(init)
    if why is not None:
        raise AmploraError(f"{where}: key 'init_lora_weights' is {_show(init)}; amplora does not load it ({why})")


def _check_options(config: dict, where: Path, bad) -> dict:
    """The per-module options (rank_pattern ... bias), checked; returns them with None for unset."""
    options = {k: config.get(k) for k in ("rank_pattern", "alpha_pattern", "exclude_modules", "layers_to_transform",
                                          "layers_pattern", "modules_to_save", "bias")}
    peft_config.check_shapes(options, bad)
    target = config.get("target_modules")
    peft_rules.check_regexes(f"{where}: key ", {**options, "target_modules": target})
    if isinstance(target, str) and options["layers_to_transform"] is not None:
        bad("layers_to_transform", "null when 'target_modules' is a string (PEFT refuses the pair)")
    options["bias"] = options["bias"] or "none"
    return options


def check_config(config, where: Path) -> dict:
    """Validate an adapter_config.json: the fields amplora reads, and every other LoraConfig field is either one
    that does not change the model or is refused by name when set (adapters/peft_config.py); returns the
    normalized settings."""
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
    for key in ("base_model_name_or_path", "task_type"):
        if present(key) and not isinstance(config[key], str):
            bad(key, "a string")
    target = config.get("target_modules")
    if present("target_modules") and not (isinstance(target, str) or (
            isinstance(target, list) and all(isinstance(t, str) for t in target))):
        bad("target_modules", "a string or a list of strings")
    options = _check_options(config, where, bad)
    _refuse_unsupported(config, where)
    return {"r": r, "alpha": alpha, "dropout": float(dropout or 0.0), "dora": bool(config.get("use_dora")),
            "rslora": bool(config.get("use_rslora")), "base": config.get("base_model_name_or_path"),
            "target_modules": target, "init": config.get("init_lora_weights", True),
            "task_type": config.get("task_type"), "options": options}


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


def _check_selected(modules: dict, linears: dict, settings: dict, where: Path, cfg_where: Path) -> None:
    """Every adapted module in the file is one the config selects (PEFT would drop the others' weights);
    `linears`: the model's candidate Linear modules, what "all-linear" stands for."""
    if settings["target_modules"] is None:
        return
    spec = {"target_modules": settings["target_modules"], **settings["options"]}
    for path in modules:
        if not peft_rules.targeted(path, spec, linears):
            raise AmploraError(f"{where}: key {PREFIX}{path}.lora_A.weight: module {path!r} is not one the "
                               f"target_modules / exclude_modules / layers_to_transform of {cfg_where} select")


def _module_shapes(modules: dict, linears: dict, settings: dict, where: Path, cfg_where: Path) -> dict:
    """Each module's (rank, alpha) for amplora: the tensors' rank, and the alpha that keeps PEFT's scaling
    (alpha / r from the config, rank_pattern and alpha_pattern included)."""
    options, rslora = settings["options"], settings["rslora"]
    shapes = {}
    for path, parts in modules.items():
        key = f"{PREFIX}{path}.lora_A.weight"
        lin = linears[path]
        missing = [s for s in ("lora_A.weight", "lora_B.weight") + (("lora_magnitude_vector",)
                                                                     if settings["dora"] else ()) if s not in parts]
        if missing:
            raise AmploraError(f"{where}: module {path!r} lacks {PREFIX}{path}.{missing[0]}")
        if "lora_magnitude_vector" in parts and not settings["dora"]:
            raise AmploraError(f"{where}: key {PREFIX}{path}.lora_magnitude_vector is a DoRA weight but "
                               f"{cfg_where} does not set use_dora")
        (n_in, n_out), a = quant.features(lin), parts["lora_A.weight"]
        r = a.shape[0] if a.dim() == 2 else 0
        if r == 0:
            raise AmploraError(f"{where}: key {key} has shape {tuple(a.shape)}, not (rank >= 1, {n_in})")
        expect = {"lora_A.weight": (r, n_in), "lora_B.weight": (n_out, r), "lora_magnitude_vector": (n_out,)}
        for suffix, tensor in parts.items():
            if tuple(tensor.shape) != expect[suffix]:
                raise AmploraError(f"{where}: key {PREFIX}{path}.{suffix} has shape {tuple(tensor.shape)}, "
                                   f"this model needs {expect[suffix]} (adapter made for another base?)")
        cfg_r = peft_rules.per_module(path, settings["r"], options["rank_pattern"] or {})
        width = min(n_in, n_out)
        if cfg_r is not None and cfg_r > width:  # would scale the update down to nothing
            raise AmploraError(f"{cfg_where}: key 'r' is {cfg_r}, larger than module {path!r} allows "
                               f"(min(in, out) = {width})")
        cfg_r = r if cfg_r is None else cfg_r
        alpha = float(peft_rules.per_module(path, settings["alpha"] if settings["alpha"] is not None else cfg_r,
                                            options["alpha_pattern"] or {}))
        if settings["init"] == "pissa" and r != cfg_r:
            raise AmploraError(f"{where}: key {key} has rank {r}; a PiSSA adapter needs the config's rank {cfg_r}")
        if cfg_r != r:  # keep PEFT's scaling (alpha / config r) when the tensors' rank differs from the config's
            alpha = alpha * r / cfg_r if not rslora else alpha * math.sqrt(r / cfg_r)
        shapes[path] = (r, alpha)
    return shapes


def _check_range(modules: dict, shapes: dict, rslora: bool, where: Path) -> None:
    fp32_max = torch.finfo(torch.float32).max
    for path, parts in modules.items():
        r, alpha = shapes[path]
        scaling = alpha / math.sqrt(r) if rslora else alpha / r
        peak = {suffix: float(t.abs().max()) for suffix, t in parts.items()}
        for suffix, value in peak.items():  # float64 values past fp32's range would become Inf in the fp32 adapter
            if not value <= fp32_max:
                raise AmploraError(f"{where}: key {PREFIX}{path}.{suffix} has values beyond float32's range")
        # |scaling * B @ A| <= scaling * r * max|B| * max|A|: past fp32's range the merged weight is not finite
        bound = scaling * r * peak["lora_B.weight"] * peak["lora_A.weight"]
        if not bound < fp32_max:
            raise AmploraError(f"{where}: module {path!r}: lora_A/lora_B values so large that the update "
                               "overflows float32")


def _record(model: nn.Module, settings: dict, shapes: dict) -> None:
    """The adapter's config as the file states it, for save_adapter to write back (apply recorded exact
    per-module patterns)."""
    cfg, options = adapter_config(model), settings["options"]
    first_r = next(iter(shapes.values()))[0]
    cfg.r = settings["r"] if settings["r"] is not None else first_r
    cfg.alpha = settings["alpha"] if settings["alpha"] is not None else cfg.r
    target = settings["target_modules"]
    cfg.targets = target if target is not None else cfg.adapted
    cfg.rank_pattern, cfg.alpha_pattern = dict(options["rank_pattern"] or {}), dict(options["alpha_pattern"] or {})
    cfg.exclude_modules, cfg.layers_to_transform = options["exclude_modules"], options["layers_to_transform"]
    cfg.layers_pattern, cfg.modules_to_save = options["layers_pattern"], options["modules_to_save"]
    cfg.task_type = settings["task_type"]


def load_adapter(model: nn.Module, directory: str | os.PathLike, precision: str | Precision = "auto",
                 quantize: str | None = None, trainable: bool = False) -> nn.Module:
    """Apply a PEFT- or amplora-made adapter to a plain model, in place: the adapters with their per-module
    ranks and alphas, modules_to_save copies and trained biases, PiSSA's base residual. The config and every
    tensor are checked first (a bad one is a one-line error naming the file and the key; the model is left
    untouched), as is every module's fit with this model (a file made for another base names the first bad key)."""
    where = Path(directory) / WEIGHTS_NAME
    cfg_where = Path(directory) / CONFIG_NAME
    config, tensors = read_adapter(directory)
    settings = check_config(config, cfg_where)
    options = settings["options"]
    tensors, copies, biases = extras.split(tensors, model, options)
    modules = _group_by_module(tensors, where)
    if not modules:
        raise AmploraError(f"{where}: holds no adapter weights")
    linears = targets_mod.candidate_linears(model)
    for path in modules:
        if path not in linears or peft_rules.inside_saved(path, options["modules_to_save"]):
            raise AmploraError(f"{where}: key {_show(f'{PREFIX}{path}.lora_A.weight')}: this model has no Linear "
                               f"module {_show(path)} to adapt (adapter made for another base?)")
    _check_selected(modules, linears, settings, where, cfg_where)
    shapes = _module_shapes(modules, linears, settings, where, cfg_where)
    _check_range(modules, shapes, settings["rslora"], where)
    extras.check(model, copies, biases, set(modules), options["bias"], where, cfg_where)
    dora = settings["dora"]
    apply(model, method="dora" if dora else "lora", r=next(iter(shapes.values()))[0], targets=sorted(modules),
          dropout=settings["dropout"], quantize=quantize, precision=precision, rslora=settings["rslora"],
          init="pissa" if settings["init"] == "pissa" else "default",
          rank_pattern={peft_spec.exact_key(p): r for p, (r, _) in shapes.items()},
          alpha_pattern={peft_spec.exact_key(p): a for p, (_, a) in shapes.items()},
          modules_to_save=[e for e in options["modules_to_save"] or () if any(p.endswith(e) for p in copies)] or None,
          bias=options["bias"])
    layers = lora_layers(model)
    with torch.no_grad():
        for path, parts in modules.items():
            layer = layers[path]
            layer.lora_A.weight.copy_(parts["lora_A.weight"])
            layer.lora_B.weight.copy_(parts["lora_B.weight"])
            if dora:
                layer.lora_magnitude_vector.copy_(parts["lora_magnitude_vector"])
    extras.assign(model, copies, biases)
    _record(model, settings, shapes)
    for _, p in model.named_parameters():
        if p.requires_grad:
            p.requires_grad_(trainable)
    return model
