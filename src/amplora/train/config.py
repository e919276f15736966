"""The run configuration: one dataclass, filled from defaults, then a YAML file, then command-line flags.

Keys may be written with dashes or underscores. An unknown key, a value of the wrong type or out of range, an
unknown method / quantization / precision: each is a one-line AmploraError, raised before anything is written.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, fields
from pathlib import Path

import yaml

from amplora.errors import AmploraError
from amplora.precision import PRESET_NAMES

METHODS = ("lora", "dora")
QUANTIZE = ("none", "nf4")
STRATEGIES = ("auto", "fsdp", "ddp")  # how several processes (torchrun) split the work; see distributed.py


@dataclass
class TrainConfig:
    # what to train
    model: str = "smollm2-135m"
    data: str | None = None  # JSONL (alpaca or chat form); default: the bundled precision-triage set
    eval_data: str | None = None  # held-out JSONL; default: bundled held-out split, or eval_split of --data
    eval_split: float = 0.1
    method: str = "lora"
    quantize: str = "none"
    precision: str = "auto"
    device: str = "auto"
    strategy: str = "auto"  # under torchrun: auto (fsdp; ddp for an nf4 base or fp16-mixed) | fsdp | ddp
    r: int = 16
    alpha: float = 32.0
    dropout: float = 0.0
    targets: str | list = "all-linear"
    # optimization
    lr: float = 2e-3
    weight_decay: float = 0.0
    warmup_ratio: float = 0.1
    epochs: float | None = None  # used when max_steps is 0
    max_steps: int = 60
    batch_size: int = 8
    grad_accum: int = 1
    max_grad_norm: float = 1.0
    max_length: int = 512
    packing: bool = False
    loss_chunk_rows: int = 1024
    activation_checkpointing: bool = False  # recompute each decoder layer in backward: less memory, ~1.3x time
    init_loss_scale: float | None = None  # fp16-mixed only; default is GradScaler's 2**16
    # evaluation, logging, checkpoints
    eval_every: int = 20  # held-out loss + sample generations every N steps (0: only before/after)
    eval_limit: int = 100  # held-out examples scored before and after (0: all)
    eval_loss_limit: int = 32  # held-out examples for the periodic eval loss
    eval_batch_size: int = 50
    max_new_tokens: int = 32
    samples: int = 3
    log_every: int = 5
    save_every: int = 20  # checkpoint every N steps (0: only the final adapter)
    output: str | None = None  # default: runs/train-<timestamp>
    resume: str | None = None
    overwrite: bool = False
    seed: int = 0

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def total_steps(self, micro_batches_per_epoch: int, world: int = 1) -> int:
        if self.max_steps:
            return self.max_steps
        return max(1, math.ceil(self.epochs * micro_batches_per_epoch / (self.grad_accum * world)))


def _normalize_key(key) -> str:
    return str(key).strip().replace("-", "_")


def _check_unknown(keys, where: str) -> None:
    valid = TrainConfig.field_names()
    unknown = [k for k in keys if k not in valid]
    if unknown:
        raise AmploraError(f"unknown config key{'s' if len(unknown) > 1 else ''} "
                           f"{', '.join(repr(k) for k in unknown)} in {where}; valid: {', '.join(valid)}")


def load_yaml(path: str | Path) -> dict:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AmploraError(f"config file {path} not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise AmploraError(f"cannot read config file {path}: {e}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise AmploraError(f"bad YAML in {path}{at}: {problem}") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise AmploraError(f"bad config in {path}: expected a mapping of key: value, got {type(raw).__name__}")
    values = {_normalize_key(k): v for k, v in raw.items()}
    _check_unknown(values, str(path))
    return values


def _coerce(name: str, value, kind: type, where: str):
    """YAML says `lr: 2e-4` is a string (YAML 1.1): accept numbers written as strings, reject the rest."""
    if value is None:
        if getattr(TrainConfig, name, None) is not None:
            raise AmploraError(f"{name} needs a value ({where})")
        return None
    try:
        if kind is bool:
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("true", "yes", "1", "on"):
                return True
            if str(value).lower() in ("false", "no", "0", "off"):
                return False
            raise ValueError
        if isinstance(value, bool):
            raise ValueError
        number = float(value)
        if not math.isfinite(number) or (kind is int and number != int(number)):
            raise ValueError
        return int(number) if kind is int else number
    except (TypeError, ValueError):
        wanted = {bool: "true or false", int: "an integer", float: "a number"}[kind]
        raise AmploraError(f"{name} must be {wanted}, got {value!r} ({where})") from None


_KINDS = {"r": int, "alpha": float, "dropout": float, "lr": float, "weight_decay": float, "warmup_ratio": float,
          "epochs": float, "max_steps": int, "batch_size": int, "grad_accum": int, "max_grad_norm": float,
          "max_length": int, "packing": bool, "activation_checkpointing": bool, "loss_chunk_rows": int, "init_loss_scale": float,
          "eval_every": int, "eval_limit": int, "eval_loss_limit": int, "eval_batch_size": int,
          "max_new_tokens": int, "samples": int, "log_every": int, "save_every": int, "overwrite": bool,
          "seed": int, "eval_split": float}


def _validate(cfg: TrainConfig) -> None:
    cfg.method = str(cfg.method).lower()
    if cfg.method not in METHODS:
        raise AmploraError(f"unknown method {cfg.method!r}; valid: {', '.join(METHODS)}")
    cfg.quantize = "none" if cfg.quantize in (None, False, "") else str(cfg.quantize).lower()
    if cfg.quantize not in QUANTIZE:
        raise AmploraError(f"unknown quantize {cfg.quantize!r}; valid: {', '.join(QUANTIZE)}")
    cfg.strategy = str(cfg.strategy).lower()
    if cfg.strategy not in STRATEGIES:
        raise AmploraError(f"unknown strategy {cfg.strategy!r}; valid: {', '.join(STRATEGIES)}")
    cfg.precision = str(cfg.precision).lower()
    if cfg.precision not in PRESET_NAMES:
        raise AmploraError(f"unknown precision {cfg.precision!r}; valid: {', '.join(PRESET_NAMES)}")
    positive = ["r", "batch_size", "grad_accum", "max_length", "eval_batch_size", "max_new_tokens",
                "loss_chunk_rows", "log_every"]
    for name in positive:
        if getattr(cfg, name) < 1:
            raise AmploraError(f"{name} must be at least 1, got {getattr(cfg, name)}")
    for name in ["max_steps", "eval_every", "eval_limit", "eval_loss_limit", "samples", "save_every"]:
        if getattr(cfg, name) < 0:
            raise AmploraError(f"{name} must be 0 or more, got {getattr(cfg, name)}")
    if cfg.lr <= 0 or cfg.max_grad_norm <= 0:
        raise AmploraError("lr and max_grad_norm must be positive")
    if cfg.lr > 3.4e37:  # AdamW's first step is lr / (1 - beta1) = 10 x lr, a float32 scalar: above this it overflows
        raise AmploraError(f"lr must be at most 3.4e37 (AdamW's step size, up to 10 x lr, overflows float32 above "
                           f"that), got {cfg.lr:g}")
    if not 0 <= cfg.dropout < 1 or not 0 <= cfg.warmup_ratio < 1 or not 0 < cfg.eval_split < 1:
        raise AmploraError("dropout and warmup_ratio must be in [0, 1), eval_split in (0, 1)")
    if cfg.max_steps == 0:
        cfg.epochs = 1.0 if cfg.epochs is None else cfg.epochs
        if cfg.epochs <= 0:
            raise AmploraError(f"epochs must be positive, got {cfg.epochs}")
    if cfg.init_loss_scale is not None and cfg.init_loss_scale <= 0:
        raise AmploraError(f"init_loss_scale must be positive, got {cfg.init_loss_scale}")
    if isinstance(cfg.targets, str) and "," in cfg.targets:  # --targets q_proj,v_proj
        cfg.targets = [t.strip() for t in cfg.targets.split(",") if t.strip()]
    if not cfg.targets or not (isinstance(cfg.targets, str) or
                               all(isinstance(t, str) for t in cfg.targets)):
        raise AmploraError("targets must be 'all-linear', a regex, or a list of module-name suffixes")


def build_config(file_values: dict | None = None, overrides: dict | None = None, where: str = "flags"
                 ) -> TrainConfig:
    """Defaults <- file values <- overrides (flags), coerced and validated."""
    merged = dict(file_values or {})
    for k, v in (overrides or {}).items():
        merged[_normalize_key(k)] = v
    _check_unknown(merged, where)
    if merged.get("epochs") is not None and "max_steps" not in merged:
        merged["max_steps"] = 0  # `epochs: 2` alone means "train by epochs"
    for name, kind in _KINDS.items():
        if name in merged:
            merged[name] = _coerce(name, merged[name], kind, where)
    for name in ("model", "data", "eval_data", "output", "resume", "precision", "device", "method", "strategy"):
        if merged.get(name) is not None:
            merged[name] = str(merged[name])
    cfg = TrainConfig(**merged)
    _validate(cfg)
    return cfg


def dump_yaml(cfg: TrainConfig) -> str:
    return yaml.safe_dump(cfg.as_dict(), sort_keys=False)
