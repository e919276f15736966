"""Checkpoints: everything a run needs to continue exactly, written atomically.

OUTPUT/checkpoints/step-000050/
    adapter/             the adapter so far, PEFT format (amplora.save_adapter; refuses NaN/Inf)
    trainer_state.pt     exact fp32 trainable tensors (full, gathered from all ranks), optimizer, scheduler, loss scaler, RNG states, data
                         position and the run's bookkeeping (before-training scores, counters)

The directory is built under a temporary name and renamed into place, so a run killed at any moment (SIGKILL
included) leaves only complete checkpoints behind.
"""
from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import torch

from amplora.errors import AmploraError
from amplora.train import atomic
from amplora.train.distributed import full_tensor, like_param

STATE_FILE = "trainer_state.pt"
CHECKPOINTS = "checkpoints"
KEEP = 2  # most recent checkpoints kept on disk
_STEP_DIR = re.compile(r"^step-(\d+)$")


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
    with atomic.directory(dest) as tmp:
        amplora.save_adapter(model, tmp / "adapter", base_model_name_or_path=base_model_name)
        torch.save({
            "step": step,
            "trainable": trainable,
            "optimizer": optim_state,
            "scheduler": scheduler.state_dict(),
            "scaler": scaler.state_dict(),
            "rng": rng if rng is not None else rng_state(),
            "bookkeeping": bookkeeping,
        }, tmp / STATE_FILE)
    _prune(dest.parent)
    return dest


def _prune(directory: Path) -> None:
    """Keep the KEEP newest checkpoints; drop temporary dirs a killed run left half-written."""
    for old in sorted(checkpoint_dirs(directory))[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)
    for leftover in directory.glob(".step-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def checkpoint_dirs(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if _STEP_DIR.match(p.name) and (p / STATE_FILE).is_file())


def find_checkpoint(path: str | Path) -> tuple[Path, Path]:
    """(checkpoint dir, run dir) from --resume, which names a run output dir or one of its checkpoints."""
    path = Path(path).expanduser()
    if (path / STATE_FILE).is_file():
        _prune(path.parent)
        return path, path.parent.parent
    if (path / CHECKPOINTS).is_dir():
        _prune(path / CHECKPOINTS)
    found = checkpoint_dirs(path / CHECKPOINTS)
    if found:
        return found[-1], path
    if not path.exists():
        raise AmploraError(f"--resume {path}: no such directory")
    raise AmploraError(f"--resume {path}: no checkpoint there (expected {CHECKPOINTS}/step-N/{STATE_FILE}; "
                       f"was the run started with --save-every?)")


def load_checkpoint(checkpoint_dir: Path) -> dict:
    try:
        return torch.load(checkpoint_dir / STATE_FILE, map_location="cpu", weights_only=False)
    except Exception as e:  # a foreign or damaged file: one line, not a pickle traceback
        raise AmploraError(f"cannot read checkpoint {checkpoint_dir / STATE_FILE}: {type(e).__name__}: {e}") from None


def restore(state: dict, named_params, optimizer, scheduler, scaler) -> None:
    """Put trainable tensors, optimizer, scheduler, scaler and RNGs back exactly as they were saved."""
    saved = state["trainable"]
    names = [name for name, _ in named_params]
    if sorted(saved) != sorted(names):
        missing = next(iter(sorted(set(names) ^ set(saved))))
        raise AmploraError(f"checkpoint does not match this adapter configuration (first differing parameter: "
                           f"{missing}); resume with the run's own config")
    with torch.no_grad():
        for name, p in named_params:
            if saved[name].shape != p.shape:
                raise AmploraError(f"checkpoint parameter {name} has shape {tuple(saved[name].shape)}, "
                                   f"the model has {tuple(p.shape)}")
            p.copy_(like_param(saved[name], p))  # this rank's shard under FSDP2
    optim_state = state["optimizer"]
    params = [p for _, p in named_params]  # the optimizer's own order, as at save time
    optim_state["state"] = {i: {k: like_param(v, params[int(i)]) if isinstance(v, torch.Tensor) and k != "step"
                                else v for k, v in s.items()} for i, s in optim_state["state"].items()}
    optimizer.load_state_dict(optim_state)
    scheduler.load_state_dict(state["scheduler"])
    scaler.load_state_dict(state["scaler"])
    set_rng_state(state["rng"])
