"""Checkpoints: everything a run needs to continue exactly, written atomically, read without pickle.

OUTPUT/checkpoints/step-000050/
    adapter/                     the adapter so far, PEFT format (amplora.save_adapter; refuses NaN/Inf)
    trainer_state.safetensors    every tensor: exact fp32 trainable tensors (full, gathered from all ranks),
                                 optimizer state tensors, torch/CUDA RNG states (uint8)
    trainer_state.json           everything else: step, optimizer param groups, scheduler, loss scaler, Python RNG
                                 state, data position and the run's bookkeeping; tensors appear there as
                                 {"__tensor__": key} (a key of the safetensors file), tuples as {"__tuple__": [...]}
                                 and dicts with non-string keys as {"__items__": [[key, value], ...]}

Neither file can run code when read (the old pickle-based trainer_state.pt is refused, never opened). The directory
is built under a temporary name and renamed into place, so a run killed at any moment (SIGKILL included) leaves
only complete checkpoints behind.

Pruning happens only after a checkpoint is written, never when resuming. A run resumed from step R while newer
checkpoints exist (a rollback) starts a new lineage: the newer ones are left alone until the resumed run writes
its first checkpoint, then removed (they belong to the abandoned future), and the KEEP newest of the resumed
lineage (its own checkpoints and those up to step R) are kept.
"""
from __future__ import annotations

import json
import os
import random
import re
import secrets
import shutil
from pathlib import Path

import torch

from amplora import atomic
from amplora.errors import AmploraError
from amplora.train.distributed import full_tensor, like_param

STATE_FILE = "trainer_state.json"  # its presence marks a checkpoint directory
TENSOR_FILE = "trainer_state.safetensors"
LEGACY_FILE = "trainer_state.pt"  # pickle: refused, never loaded
FORMAT = 1
CHECKPOINTS = "checkpoints"
KEEP = 2  # most recent checkpoints of the run's lineage kept on disk
_STEP_DIR = re.compile(r"^step-(\d+)$")
_TOP_KEYS = {"format": int, "step": int, "trainable": dict, "optimizer": dict, "scheduler": dict, "scaler": dict,
             "rng": (dict, list), "bookkeeping": dict}


def rng_state() -> dict:
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict | list) -> None:
    """A list holds one state per rank of a distributed run: this rank's, or rank 0's when the world grew."""
    if isinstance(state, list):
        state = state[_rank()] if _rank() < len(state) else state[0]
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _rank() -> int:
    import torch.distributed as dist

    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def full_optimizer_state(optimizer) -> dict:
    """optimizer.state_dict() with FSDP2-sharded state (Adam's moments) gathered into full tensors, so a
    checkpoint has the same form whatever the world size. A collective under FSDP2: every rank calls it."""
    sd = optimizer.state_dict()
    sd["state"] = {i: {k: full_tensor(v) if isinstance(v, torch.Tensor) else v for k, v in s.items()}
                   for i, s in sd["state"].items()}
    return sd


# ---- the format: JSON for structure, safetensors for tensors -------------------------------------------------

def _encode(obj, key: str, tensors: dict):
    """JSON-ready form of obj; its tensors go to `tensors` under path-like keys. Tuples and int-keyed dicts are
    tagged so that decoding gives back exactly what was saved (random.setstate wants its tuples back)."""
    if isinstance(obj, torch.Tensor):
        if key in tensors:
            raise TypeError(f"checkpoint: two tensors would be stored as {key}")
        tensors[key] = obj.detach().to("cpu").contiguous()
        return {"__tensor__": key}
    if isinstance(obj, tuple):
        return {"__tuple__": [_encode(v, _join(key, i), tensors) for i, v in enumerate(obj)]}
    if isinstance(obj, list):
        return [_encode(v, _join(key, i), tensors) for i, v in enumerate(obj)]
    if isinstance(obj, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in obj):
            return {k: _encode(v, _join(key, k), tensors) for k, v in obj.items()}
        if not all(k is None or isinstance(k, (bool, int, float, str)) for k in obj):
            raise TypeError(f"checkpoint: cannot store the keys of {key}")
        return {"__items__": [[k, _encode(v, _join(key, k), tensors)] for k, v in obj.items()]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"checkpoint: cannot store {key} of type {type(obj).__name__}")


def _join(key: str, part) -> str:
    return f"{key}/{part}" if key else str(part)


class _Bad(Exception):
    """A structural problem at a key path; turned into one AmploraError naming the file."""


def _decode(obj, key: str, tensors: dict, used: set):
    if isinstance(obj, list):
        return [_decode(v, _join(key, i), tensors, used) for i, v in enumerate(obj)]
    if not isinstance(obj, dict):
        return obj
    if "__tensor__" in obj:
        name = obj["__tensor__"]
        if len(obj) != 1 or not isinstance(name, str):
            raise _Bad(f"key {key}: malformed tensor reference")
        if name not in tensors:
            raise _Bad(f"key {key}: tensor {name!r} is missing from {TENSOR_FILE}")
        used.add(name)
        return tensors[name]
    if "__tuple__" in obj:
        if len(obj) != 1 or not isinstance(obj["__tuple__"], list):
            raise _Bad(f"key {key}: malformed tuple")
        return tuple(_decode(v, _join(key, i), tensors, used) for i, v in enumerate(obj["__tuple__"]))
    if "__items__" in obj:
        items = obj["__items__"]
        if len(obj) != 1 or not isinstance(items, list) or not all(isinstance(p, list) and len(p) == 2 for p in items):
            raise _Bad(f"key {key}: malformed item list")
        out = {}
        for k, v in items:
            if not isinstance(k, (str, int, float, bool)) and k is not None:
                raise _Bad(f"key {key}: a dict key must be a plain value")
            out[k] = _decode(v, _join(key, k), tensors, used)
        return out
    return {k: _decode(v, _join(key, k), tensors, used) for k, v in obj.items()}


def _write_state(directory: Path, state: dict) -> None:
    from safetensors.torch import save_file

    tensors: dict[str, torch.Tensor] = {}
    body = _encode(state, "", tensors)
    save_file(tensors, str(directory / TENSOR_FILE), metadata={"format": "amplora-trainer-state"})
    atomic.write_json(directory / STATE_FILE, body)


def save_checkpoint(output_dir: Path, step: int, model, named_params, optimizer, scheduler, scaler,
                    bookkeeping: dict, base_model_name: str, write: bool = True, rng: list | None = None) -> Path:
    """Distributed: every rank calls this (sharded tensors are gathered), with write=True on rank 0 only."""
    import amplora

    trainable = {name: full_tensor(p.detach()).clone() for name, p in named_params}
    if not all(bool(torch.isfinite(t).all()) for t in trainable.values()):
        raise AmploraError(f"step {step}: adapter weights are not finite; refusing to save a NaN/Inf checkpoint")
    optim_state = full_optimizer_state(optimizer)
    dest = Path(output_dir) / CHECKPOINTS / f"step-{step:06d}"
    if not write:
        amplora.save_adapter(model, dest / "adapter", write=False)  # joins the gather rank 0 makes
        return dest
    # a run's checkpoints carry one lineage id (secrets, not `random`: the saved RNG state must not move)
    bookkeeping.setdefault("lineage", secrets.token_hex(8))
    with atomic.directory(dest) as tmp:
        amplora.save_adapter(model, tmp / "adapter", base_model_name_or_path=base_model_name)
        _write_state(tmp, {
            "format": FORMAT,
            "step": step,
            "trainable": trainable,
            "optimizer": optim_state,
            "scheduler": scheduler.state_dict(),
            "scaler": scaler.state_dict(),
            "rng": rng if rng is not None else rng_state(),
            "bookkeeping": bookkeeping,
        })
    _prune(dest.parent, step, bookkeeping["lineage"], bookkeeping.get("resumed_from"))
    return dest


def _lineage_of(checkpoint_dir: Path) -> str | None:
    try:
        book = json.loads((checkpoint_dir / STATE_FILE).read_text(encoding="utf-8")).get("bookkeeping")
        return book.get("lineage") if isinstance(book, dict) else None
    except (OSError, ValueError, AttributeError):
        return None


def _remove(path: Path) -> None:
    """Rename aside, then delete: a kill halfway leaves a hidden leftover, never a half-deleted step-N."""
    aside = path.with_name(f".{path.name}.del-{os.getpid()}")
    try:
        os.rename(path, aside)
    except OSError:
        return
    shutil.rmtree(aside, ignore_errors=True)


def _prune(directory: Path, written: int, lineage: str, resumed_from: int | None) -> None:
    """After writing step `written`: checkpoints past the resume point from another lineage (the future a rollback
    abandoned) go, then all but the KEEP newest of this lineage; also temporary dirs a killed run left behind."""
    mine = []
    for d in checkpoint_dirs(directory):
        step = step_of(d)
        if step != written and resumed_from is not None and step > resumed_from and _lineage_of(d) != lineage:
            _remove(d)
        else:
            mine.append(d)
    for old in mine[:-KEEP]:
        _remove(old)
    for leftover in directory.glob(".step-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def step_of(checkpoint_dir: Path) -> int:
    return int(_STEP_DIR.match(checkpoint_dir.name).group(1))


def _step_dirs(directory: Path, *markers: str) -> list[Path]:
    if not directory.is_dir():
        return []
    found = [p for p in directory.iterdir()
             if _STEP_DIR.match(p.name) and any((p / m).is_file() for m in markers)]
    return sorted(found, key=step_of)


def checkpoint_dirs(directory: Path) -> list[Path]:
    """Complete checkpoints (current format) under `directory`, oldest step first."""
    return _step_dirs(Path(directory), STATE_FILE)


def _require_supported(checkpoint_dir: Path) -> None:
    if not (checkpoint_dir / STATE_FILE).is_file() and (checkpoint_dir / LEGACY_FILE).exists():
        raise AmploraError(f"checkpoint {checkpoint_dir}: the checkpoint format of {LEGACY_FILE} (pickle) is not "
                           f"supported; it is not loaded, since reading it could run code")


def find_checkpoint(path: str | Path, allow_none: bool = False) -> tuple[Path | None, Path]:
    """(checkpoint dir, run dir) from --resume, which names a run output dir or one of its checkpoints. Nothing is
    deleted here: the checkpoint a run resumes from must outlive the load. With allow_none, a run directory with a
    config.yaml but no checkpoint gives (None, run dir)."""
    path = Path(path).expanduser()
    if (path / STATE_FILE).is_file() or (path / LEGACY_FILE).exists():
        _require_supported(path)
        return path, path.parent.parent
    found = _step_dirs(path / CHECKPOINTS, STATE_FILE, LEGACY_FILE)
    if found:
        _require_supported(found[-1])
        return found[-1], path
    if not path.exists():
        raise AmploraError(f"--resume {path}: no such directory")
    if allow_none and (path / "config.yaml").is_file():
        return None, path
    raise AmploraError(f"--resume {path}: no checkpoint there (expected {CHECKPOINTS}/step-N/{STATE_FILE}; "
                       f"was the run started with --save-every?)")


def load_checkpoint(checkpoint_dir: Path) -> dict:
    """The saved state, read from JSON and safetensors only; a damaged or foreign checkpoint is a one-line error
    naming the file and the key."""
    from safetensors.torch import load_file

    checkpoint_dir = Path(checkpoint_dir)
    _require_supported(checkpoint_dir)
    json_path, tensor_path = checkpoint_dir / STATE_FILE, checkpoint_dir / TENSOR_FILE
    try:
        body = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise AmploraError(f"cannot read checkpoint {json_path}: {type(e).__name__}: "
                           f"{str(e).splitlines()[0] if str(e) else ''}") from None
    try:
        tensors = load_file(str(tensor_path), device="cpu")
    except Exception as e:  # safetensors raises several types for a missing, damaged header or body
        first = str(e).splitlines()[0] if str(e) else ""
        raise AmploraError(f"cannot read checkpoint {tensor_path}: {type(e).__name__}: {first}") from None
    if not isinstance(body, dict):
        raise AmploraError(f"checkpoint {json_path}: expected a JSON object, got {type(body).__name__}")
    for key, kind in _TOP_KEYS.items():
        if key not in body:
            raise AmploraError(f"checkpoint {json_path}: key {key!r} is missing")
    if body["format"] != FORMAT:
        raise AmploraError(f"checkpoint {json_path}: format {body['format']!r} is not supported (this amplora "
                           f"reads format {FORMAT})")
    used: set = set()
    try:
        state = _decode(body, "", tensors, used)
    except _Bad as e:
        raise AmploraError(f"checkpoint {json_path}: {e}") from None
    unused = sorted(set(tensors) - used)
    if unused:
        raise AmploraError(f"checkpoint {tensor_path}: tensor {unused[0]!r} is not referred to by {STATE_FILE} "
                           f"(files from different checkpoints?)")
    for key, kind in _TOP_KEYS.items():
        if not isinstance(state[key], kind) or (kind is int and isinstance(state[key], bool)):
            raise AmploraError(f"checkpoint {json_path}: key {key!r} has the wrong type "
                               f"({type(state[key]).__name__})")
    if state["step"] < 0:
        raise AmploraError(f"checkpoint {json_path}: key 'step' is negative")
    for name, t in state["trainable"].items():
        if not isinstance(t, torch.Tensor):
            raise AmploraError(f"checkpoint {json_path}: key 'trainable/{name}' is not a tensor")
    for key in ("state", "param_groups"):
        if key not in state["optimizer"]:
            raise AmploraError(f"checkpoint {json_path}: key 'optimizer/{key}' is missing")
    for i, rng in enumerate(state["rng"] if isinstance(state["rng"], list) else [state["rng"]]):
        if not isinstance(rng, dict) or "python" not in rng or not isinstance(rng.get("torch"), torch.Tensor) \
                or rng["torch"].dtype != torch.uint8:
            raise AmploraError(f"checkpoint {json_path}: key 'rng' (entry {i}) needs a Python state and a uint8 "
                               f"torch state")
    state["checkpoint_dir"] = str(checkpoint_dir)
    return state


def load_for_resume(checkpoint_dir: Path) -> dict:
    """load_checkpoint, plus what pruning needs to know: the step resumed from, and a new lineage when newer
    checkpoints exist (a rollback: those belong to the future being abandoned)."""
    state = load_checkpoint(checkpoint_dir)
    book = state["bookkeeping"]
    book["resumed_from"] = state["step"]
    newer = [d for d in _step_dirs(Path(checkpoint_dir).parent, STATE_FILE, LEGACY_FILE)
             if step_of(d) > state["step"]]
    if newer or not isinstance(book.get("lineage"), str):
        book["lineage"] = secrets.token_hex(8)
    return state


def restore(state: dict, named_params, optimizer, scheduler, scaler) -> None:
    """Put trainable tensors, optimizer, scheduler, scaler and RNGs back exactly as they were saved."""
    where = f"checkpoint {Path(state.get('checkpoint_dir', '.')) / STATE_FILE}"
    saved = state["trainable"]
    names = [name for name, _ in named_params]
    if sorted(saved) != sorted(names):
        missing = next(iter(sorted(set(names) ^ set(saved))))
        raise AmploraError(f"checkpoint does not match this adapter configuration (first differing parameter: "
                           f"{missing}); resume with the run's own config")
    params = [p for _, p in named_params]  # the optimizer's own order, as at save time
    for name, p in named_params:
        if saved[name].shape != p.shape:
            raise AmploraError(f"checkpoint parameter {name} has shape {tuple(saved[name].shape)}, "
                               f"the model has {tuple(p.shape)}")
    optim_state = state["optimizer"]
    if not isinstance(optim_state["state"], dict) or not isinstance(optim_state["param_groups"], list):
        raise AmploraError(f"{where}: key 'optimizer' is malformed")
    for i, s in optim_state["state"].items():
        if not isinstance(i, int) or not 0 <= i < len(params) or not isinstance(s, dict):
            raise AmploraError(f"{where}: key 'optimizer/state/{i}' does not name one of the {len(params)} "
                               f"trainable parameters")
        for k, v in s.items():
            if isinstance(v, torch.Tensor) and k != "step" and v.shape != params[i].shape:
                raise AmploraError(f"{where}: key 'optimizer/state/{i}/{k}' has shape {tuple(v.shape)}, "
                                   f"the parameter has {tuple(params[i].shape)}")
    with torch.no_grad():
        for name, p in named_params:
            p.copy_(like_param(saved[name], p))  # this rank's shard under FSDP2
    optim_state = {**optim_state, "state": {
        i: {k: like_param(v, params[i]) if isinstance(v, torch.Tensor) and k != "step" else v for k, v in s.items()}
        for i, s in optim_state["state"].items()}}
    for key, target, value in (("optimizer", optimizer, optim_state), ("scheduler", scheduler, state["scheduler"]),
                               ("scaler", scaler, state["scaler"]), ("rng", None, state["rng"])):
        try:
            set_rng_state(value) if target is None else target.load_state_dict(value)
        except (KeyError, IndexError, TypeError, ValueError, RuntimeError) as e:
            first = str(e).splitlines()[0] if str(e) else ""
            raise AmploraError(f"{where}: key {key!r} cannot be restored: {type(e).__name__}: {first}") from None
