"""The run configuration: one dataclass, filled from defaults, then a YAML file, then command-line flags.

Keys may be written with dashes or underscores. An unknown key, a value of the wrong type or out of range, an
unknown method / quantization / precision: each is a one-line AmploraError, raised before anything is written.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, fields
from pathlib import Path

import yaml

from amplora.errors import AmploraError
from amplora.precision import PRESET_NAMES
from amplora.train.user_files import read_bytes

METHODS = ("lora", "dora")
QUANTIZE = ("none", "nf4")
STRATEGIES = ("auto", "fsdp", "ddp")  # how several processes (torchrun) split the work; see distributed.py
DATA_FORMATS = ("auto", "alpaca", "chat", "sharegpt", "prompt-completion", "text")  # dataset.py's record forms
BUNDLED_MAX_STEPS = 60  # the bundled task's length; a user's --data trains by epochs unless told otherwise


@dataclass
class TrainConfig:
    # what to train
    model: str = "smollm2-135m"
    data: str | None = None  # files, comma-separated (dataset.py); default: the bundled precision-triage set
    eval_data: str | None = None  # held-out files; default: bundled held-out split, or eval_split of --data
    data_format: str = "auto"  # auto: each record's fields say its form
    chat_template: str | None = None  # a name (chat_templates.py) or a Jinja file; default: the tokenizer's
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
    # PEFT's LoraConfig options, with PEFT's meaning (docs/peft-compat.md)
    modules_to_save: str | list | None = None  # modules trained whole (e.g. lm_head, score), comma-separated
    bias: str = "none"  # none | lora_only | all
    exclude_modules: str | list | None = None  # module-name suffixes, or a regex, left without adapters
    rank_pattern: str | dict | None = None  # per-module rank: {"q_proj": 8} or "q_proj=8,v_proj=4"
    alpha_pattern: str | dict | None = None  # per-module alpha, the same forms
    # optimization
    lr: float = 2e-3
    weight_decay: float = 0.0
    warmup_ratio: float = 0.1
    epochs: float | None = None  # used when max_steps is 0
    max_steps: int = BUNDLED_MAX_STEPS  # not given: this on the bundled data, else 0 (by epochs, default 1)
    batch_size: int = 8
    grad_accum: int = 1
    max_grad_norm: float = 1.0
    max_length: int = 512
    packing: bool = False
    loss_chunk_rows: int = 1024
    activation_checkpointing: bool = False  # recompute each decoder layer in backward: less memory, more time
    compile: bool = False  # torch.compile each decoder layer (CUDA graphs on a GPU); widths padded to 64s
    init_loss_scale: float | None = None  # fp16-mixed only; default is GradScaler's 2**16
    # evaluation, logging, checkpoints
    eval_every: int = 20  # held-out loss + sample generations every N steps (0: only before/after)
    eval_limit: int = 100  # held-out examples scored before and after (0: all)
    eval_loss_limit: int = 32  # held-out examples for the periodic eval loss
    eval_batch_size: int = 50
    max_new_tokens: int = 32
    exact_match: bool | None = None  # score generations before/after; not given: on for the bundled data only
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


MAX_CONFIG_BYTES = 16 << 20  # a config is a few dozen lines


def load_yaml(path: str | Path) -> dict:
    path = Path(path)
    data = read_bytes(path, "config file", MAX_CONFIG_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AmploraError(f"cannot read config file {path}: not UTF-8 text (byte {e.start})") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or (str(e).splitlines() or [type(e).__name__])[0]
        raise AmploraError(f"bad YAML in {path}{at}: {problem}") from None
    except RecursionError:
        raise AmploraError(f"bad YAML in {path}: nested too deeply") from None
    except (ValueError, OverflowError) as e:  # PyYAML's constructors: a date like 2024-13-45, a 5000-digit int
        raise AmploraError(f"bad YAML in {path}: {_show(str(e), 120)}") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise AmploraError(f"bad config in {path}: expected a mapping of key: value, got {type(raw).__name__}")
    bad = next((k for k in raw if not _is_scalar(k)), None)
    if bad is not None:
        raise AmploraError(f"bad config in {path}: a key must be a name, got a {type(bad).__name__}")
    values = {_normalize_key(k): v for k, v in raw.items()}
    _check_unknown(values, str(path))
    return values


def _is_scalar(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _show(value, n: int = 60) -> str:
    """A value for an error message: one line, short, and never the repr of a whole YAML structure (aliases can
    make one exponentially large)."""
    if not _is_scalar(value):
        return f"a {type(value).__name__}"
    text = repr(value)
    return text if len(text) <= n else text[:n] + "..."


def _coerce(name: str, value, kind: type, where: str):
    """YAML says `lr: 2e-4` is a string (YAML 1.1): accept numbers written as strings, reject the rest.
    Integers are read exactly (a 64-bit seed would not survive a trip through float)."""
    if value is None:
        if getattr(TrainConfig, name, None) is not None:
            raise AmploraError(f"{name} needs a value ({where})")
        return None
    try:
        if not _is_scalar(value):
            raise ValueError
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
        if kind is int:
            if isinstance(value, int):
                return value
            if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
                return int(value.strip())
        number = float(value)
        if not math.isfinite(number) or (kind is int and number != int(number)):
            raise ValueError
        return int(number) if kind is int else number
    except (TypeError, ValueError, OverflowError):
        wanted = {bool: "true or false", int: "an integer", float: "a number"}[kind]
        raise AmploraError(f"{name} must be {wanted}, got {_show(value)} ({where})") from None


_KINDS = {"r": int, "alpha": float, "dropout": float, "lr": float, "weight_decay": float, "warmup_ratio": float,
          "epochs": float, "max_steps": int, "batch_size": int, "grad_accum": int, "max_grad_norm": float,
          "max_length": int, "packing": bool, "activation_checkpointing": bool, "compile": bool,
          "loss_chunk_rows": int, "init_loss_scale": float,
          "eval_every": int, "eval_limit": int, "eval_loss_limit": int, "eval_batch_size": int,
          "max_new_tokens": int, "samples": int, "log_every": int, "save_every": int, "overwrite": bool,
          "seed": int, "eval_split": float, "exact_match": bool}
_PATHS = ("model", "data", "eval_data", "output", "resume", "chat_template")  # strings handed to the filesystem
_NAMES = ("precision", "device", "method", "strategy", "quantize", "data_format")  # checked against a list below

F32_MAX = 3.4028234663852886e38  # alpha and the loss scale end up in fp32 tensors
F32_TINY = 1.1754943508222875e-38  # the smallest normal fp32: a loss scale below it is 0 or loses precision
COUNT_MAX = 2**31 - 1  # steps, batch sizes, lengths: far beyond any run, and within every int32 index
INF = math.inf
LR_MAX = 3.4e37  # AdamW's first step is lr / (1 - beta1) = 10 x lr, a float32 scalar: above this it overflows

# name: (low, high, low excluded, high excluded). Every number the model, the optimizer, the scheduler,
# GradScaler or torch.manual_seed would refuse (or turn into a run that never ends) is refused here instead,
# naming the key and where it came from.
RANGES = {
    "r": (1, 65536, False, False),  # the rank cannot usefully exceed a layer's width
    "alpha": (0, F32_MAX, True, False),
    "dropout": (0, 1, False, True),
    "lr": (0, LR_MAX, True, False),
    "weight_decay": (0, INF, False, True),  # AdamW: "Invalid weight_decay value" below 0
    "warmup_ratio": (0, 1, False, True),
    "epochs": (0, 1e6, True, False),
    "max_steps": (0, COUNT_MAX, False, False),
    "batch_size": (1, COUNT_MAX, False, False),
    "grad_accum": (1, COUNT_MAX, False, False),
    "max_grad_norm": (0, INF, True, True),
    "max_length": (1, COUNT_MAX, False, False),
    "loss_chunk_rows": (1, COUNT_MAX, False, False),
    "init_loss_scale": (F32_TINY, F32_MAX, False, False),
    "eval_every": (0, COUNT_MAX, False, False),
    "eval_limit": (0, COUNT_MAX, False, False),
    "eval_loss_limit": (0, COUNT_MAX, False, False),
    "eval_batch_size": (1, COUNT_MAX, False, False),
    "max_new_tokens": (1, COUNT_MAX, False, False),
    "samples": (0, COUNT_MAX, False, False),
    "log_every": (1, COUNT_MAX, False, False),
    "save_every": (0, COUNT_MAX, False, False),
    "seed": (0, 2**32 - 1, False, False),  # the batch order seeds torch.Generator with seed * 1_000_003 + epoch
    "eval_split": (0, 1, True, True),
}


def _out_of_range(name: str, value) -> str | None:
    """What is wrong with `value` for `name` ("at least 1", "less than 1"), or None when it is in range."""
    low, high, low_open, high_open = RANGES[name]
    if low_open and value <= low or value < low:
        return f"{'greater than' if low_open else 'at least'} {_number(low)}"
    if high_open and value >= high or value > high:
        return f"{'less than' if high_open else 'at most'} {_number(high)}"
    return None


def _number(value) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def _validate(cfg: TrainConfig, source: dict | None = None) -> None:
    """source: key -> where its value came from ("flags" or a YAML file), for the messages."""
    def where(name: str) -> str:
        return f" ({(source or {}).get(name, 'flags')})"

    for name in _PATHS + _NAMES:
        value = getattr(cfg, name)
        if value is not None and not _is_scalar(value):
            raise AmploraError(f"{name} must be a string, got {_show(value)}{where(name)}")
        if isinstance(value, str) and "\0" in value:  # open() and every OS call reject it
            raise AmploraError(f"{name} must not contain a NUL character{where(name)}")
    cfg.method = str(cfg.method).lower()
    if cfg.method not in METHODS:
        raise AmploraError(f"unknown method {_show(cfg.method)}; valid: {', '.join(METHODS)}")
    cfg.quantize = "none" if cfg.quantize in (None, False, "") else str(cfg.quantize).lower()
    if cfg.quantize not in QUANTIZE:
        raise AmploraError(f"unknown quantize {_show(cfg.quantize)}; valid: {', '.join(QUANTIZE)}")
    cfg.strategy = str(cfg.strategy).lower()
    if cfg.strategy not in STRATEGIES:
        raise AmploraError(f"unknown strategy {_show(cfg.strategy)}; valid: {', '.join(STRATEGIES)}")
    cfg.data_format = str(cfg.data_format).lower()
    if cfg.data_format not in DATA_FORMATS:
        raise AmploraError(f"unknown data_format {_show(cfg.data_format)}; valid: {', '.join(DATA_FORMATS)}")
    if cfg.exact_match is None:  # the bundled task has one-line answers to match; a user's data may not
        cfg.exact_match = cfg.data is None
    cfg.precision = str(cfg.precision).lower()
    if cfg.precision not in PRESET_NAMES:
        raise AmploraError(f"unknown precision {_show(cfg.precision)}; valid: {', '.join(PRESET_NAMES)}")
    if cfg.compile and (cfg.quantize != "none" or cfg.activation_checkpointing):
        other = "a quantized base" if cfg.quantize != "none" else "activation_checkpointing"
        raise AmploraError(f"compile does not combine with {other}: turn one of them off")
    if cfg.max_steps == 0 and cfg.epochs is None:
        cfg.epochs = 1.0
    for name in RANGES:
        value = getattr(cfg, name)
        if value is None:
            continue
        wrong = _out_of_range(name, value)
        if wrong:
            raise AmploraError(f"{name} must be {wrong}, got {_number(value)}{where(name)}")
    if isinstance(cfg.targets, str) and "," in cfg.targets:  # --targets q_proj,v_proj
        cfg.targets = [t.strip() for t in cfg.targets.split(",") if t.strip()]
    if not cfg.targets or not (isinstance(cfg.targets, str) or (isinstance(cfg.targets, list) and
                                                                all(isinstance(t, str) for t in cfg.targets))):
        raise AmploraError(f"targets must be 'all-linear', a module-name suffix, a regex, or a list of "
                           f"module-name suffixes{where('targets')}")
    _validate_peft_options(cfg, where)


BIASES = ("none", "lora_only", "all")


def _names_list(value, name: str, where) -> list[str] | None:
    """A list of module names from a YAML list or a comma-separated string; None when not given."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise AmploraError(f"{name} must be module names, comma-separated or a list, got {_show(value)}{where(name)}")
    return value


def _pattern(value, name: str, kind, where) -> dict | None:
    """{module name: number} from a YAML mapping or 'q_proj=8,v_proj=4'; None when not given."""
    if value is None or value == "" or value == {}:
        return None
    if isinstance(value, str):
        pairs = [p.strip() for p in value.split(",") if p.strip()]
        if not all(p.count("=") == 1 and all(s.strip() for s in p.split("=")) for p in pairs):
            raise AmploraError(f"{name} must be name=number pairs, comma-separated (q_proj=8,v_proj=4), "
                               f"got {_show(value)}{where(name)}")
        value = {k.strip(): v.strip() for k, v in (p.split("=") for p in pairs)}
    if not isinstance(value, dict) or not all(isinstance(k, str) and k for k in value):
        raise AmploraError(f"{name} must map module names to numbers, got {_show(value)}{where(name)}")
    out = {}
    for key, v in value.items():
        number = _coerce(f"{name}[{key!r}]", v, kind, where(name).strip(" ()"))
        if not number > 0:
            raise AmploraError(f"{name}[{key!r}] must be greater than 0, got {_number(number)}{where(name)}")
        out[key] = number
    return out


def _validate_peft_options(cfg: TrainConfig, where) -> None:
    cfg.modules_to_save = _names_list(cfg.modules_to_save, "modules_to_save", where)
    if isinstance(cfg.exclude_modules, str) and re.search(r"[\\^$*+?()\[\]{}|]", cfg.exclude_modules):
        pass  # a regex, matched whole against each module name as PEFT does with a string
    else:
        cfg.exclude_modules = _names_list(cfg.exclude_modules, "exclude_modules", where)  # suffixes
    cfg.bias = str(cfg.bias).lower()
    if cfg.bias not in BIASES:
        raise AmploraError(f"unknown bias {_show(cfg.bias)}; valid: {', '.join(BIASES)}")
    cfg.rank_pattern = _pattern(cfg.rank_pattern, "rank_pattern", int, where)
    cfg.alpha_pattern = _pattern(cfg.alpha_pattern, "alpha_pattern", float, where)


def build_config(file_values: dict | None = None, overrides: dict | None = None, where: str = "flags"
                 ) -> TrainConfig:
    """Defaults <- file values <- overrides (flags), coerced and validated. `where` names the file values'
    source in messages; overrides are "flags"."""
    merged = dict(file_values or {})
    source = dict.fromkeys(merged, where)
    for k, v in (overrides or {}).items():
        merged[_normalize_key(k)] = v
        source[_normalize_key(k)] = "flags"
    _check_unknown(merged, where)
    for name in ("data", "eval_data"):  # a YAML list of files, or a repeated flag: the comma-separated form
        if isinstance(merged.get(name), list) and all(isinstance(v, str) for v in merged[name]):
            merged[name] = ",".join(merged[name])
    if merged.get("epochs") is not None and "max_steps" not in merged:
        merged["max_steps"] = 0  # `epochs: 2` alone means "train by epochs"
    if "max_steps" not in merged and merged.get("data") is not None:
        merged["max_steps"] = 0  # a user's data: its size and the epochs (default 1) set the length
    for name, kind in _KINDS.items():
        if name in merged:
            merged[name] = _coerce(name, merged[name], kind, source.get(name, where))
    for name in _PATHS + ("precision", "device", "method", "strategy", "data_format"):
        if _is_scalar(merged.get(name)) and merged.get(name) is not None:
            merged[name] = str(merged[name])
    cfg = TrainConfig(**merged)
    _validate(cfg, source)
    return cfg


def dump_yaml(cfg: TrainConfig) -> str:
    return yaml.safe_dump(cfg.as_dict(), sort_keys=False)
