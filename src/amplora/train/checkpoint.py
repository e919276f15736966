"""Checkpoints: everything a run needs to continue exactly, written atomically.

OUTPUT/checkpoints/step-000050/
    adapter/             the adapter so far, PEFT format (amplora.save_adapter; refuses NaN/Inf)
    trainer_state.pt     exact fp32 trainable tensors, optimizer, scheduler, loss scaler, RNG states, data
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

STATE_FILE = "trainer_state.pt"
CHECKPOINTS = "checkpoints"
KEEP = 2  # most recent checkpoints kept on disk
_STEP_DIR = re.compile(r"^step-(\d+)$")


def rng_state() -> dict:
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def all_finite(named_params) -> bool:
    return all(bool(torch.isfinite(p).all()) for _, p in named_params)


def save_checkpoint(output_dir: Path, step: int, model, named_params, optimizer, scheduler, scaler,
                    bookkeeping: dict, base_model_name: str) -> Path:
    import amplora

    if not all_finite(named_params):
        raise AmploraError(f"step {step}: adapter weights are not finite; refusing to save a NaN/Inf checkpoint")
    dest = Path(output_dir) / CHECKPOINTS / f"step-{step:06d}"
    with atomic.directory(dest) as tmp:
        amplora.save_adapter(model, tmp / "adapter", base_model_name_or_path=base_model_name)
        torch.save({
            "step": step,
            "trainable": {name: p.detach().clone() for name, p in named_params},
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "scaler": scaler.state_dict(),
            "rng": rng_state(),
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
            p.copy_(saved[name])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    scaler.load_state_dict(state["scaler"])
    set_rng_state(state["rng"])
