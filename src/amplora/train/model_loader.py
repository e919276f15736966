"""`--model`: the embedded default (`smollm2-135m`), `tiny`, a local Hugging Face model directory, a GGUF file,
or a Hugging Face model id already in the local Hugging Face cache.

Everything loads from local files only (HF_HUB_OFFLINE=1 unless the user set it): a run never downloads.
The returned `name` is what an adapter records as `base_model_name_or_path`, so `generate` / `chat` / `merge` /
`eval` can rebuild the same base later: the embedded name, `tiny`, an absolute path (directory or GGUF file) or
the model id.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from amplora.errors import AmploraError  # noqa: E402
from amplora.train.embedded_model import (EMBEDDED_ALIASES, EMBEDDED_NAME, cached_model_dir,  # noqa: E402
                                          user_gguf_dir)
from amplora.train.tiny_model import TINY_NAME  # noqa: E402

# owner/name as the Hub spells ids (a bare name such as "gpt2" is a legacy id, and the cache has it too)
HUB_ID = re.compile(r"^(?:[A-Za-z0-9][\w.-]{0,95}/)?[A-Za-z0-9][\w.-]{0,95}$")


@dataclass
class LoadedModel:
    model: object
    tokenizer: object
    name: str  # canonical spec: "smollm2-135m", "tiny", an absolute directory or GGUF path, or a Hub id
    description: str


def hub_cache_dir() -> Path:
    """Where huggingface_hub keeps downloaded models: $HF_HUB_CACHE, else $HF_HOME/hub, else
    ~/.cache/huggingface/hub (read now, not when huggingface_hub was imported)."""
    env = os.environ
    cache = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE")
    if cache:
        return Path(cache).expanduser()
    home = env.get("HF_HOME") or Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "huggingface"
    return Path(home).expanduser() / "hub"


def cached_snapshot(model_id: str) -> Path | None:
    """The local snapshot directory of `model_id` in the Hugging Face cache, or None; never downloads."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

    try:
        path = Path(snapshot_download(model_id, cache_dir=hub_cache_dir(), local_files_only=True))
    except (LocalEntryNotFoundError, HFValidationError, OSError, ValueError):
        return None
    return path if (path / "config.json").is_file() else None


def _usage() -> str:
    return (f"use {EMBEDDED_NAME} (embedded default), {TINY_NAME} (seconds-long smoke test), a local Hugging Face "
            f"model directory, a .gguf file, or a model id in the Hugging Face cache")


def canonical_model_name(spec: str) -> str:
    """Check a --model value without loading anything; one-line error when it names nothing usable."""
    value = str(spec).strip()
    if value.lower() in EMBEDDED_ALIASES:
        return EMBEDDED_NAME
    if value.lower() == TINY_NAME:
        return TINY_NAME
    path = Path(value).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise AmploraError(f"model directory {path} has no config.json (not a Hugging Face model directory)")
        return str(path.resolve())
    if path.exists():
        if path.suffix.lower() != ".gguf":
            raise AmploraError(f"model {spec!r} is a file but not a .gguf file; {_usage()}")
        from amplora.train.user_files import regular_file

        regular_file(path, "model file", 1 << 50)  # a FIFO named x.gguf would hang the converter
        return str(path.resolve())
    if HUB_ID.match(value):
        if cached_snapshot(value) is not None:
            return value
        raise AmploraError(f"unknown model {value!r}: not a local path, and not in the Hugging Face cache at "
                           f"{hub_cache_dir()} (amplora never downloads: fetch it first, e.g. `hf download {value}`, "
                           f"or point HF_HUB_CACHE / HF_HOME at the cache that has it)")
    raise AmploraError(f"unknown model {spec!r} (no such file or directory): {_usage()}")


def model_directory(name: str) -> Path | None:
    """The Hugging Face directory a canonical name loads from (a GGUF file is converted, once, to get it);
    None for `tiny`, which is built in memory."""
    if name == TINY_NAME:
        return None
    if name == EMBEDDED_NAME:
        return cached_model_dir()
    path = Path(name)
    if path.is_file() and path.suffix.lower() == ".gguf":
        return user_gguf_dir(path)
    if path.is_absolute():
        return path
    snapshot = cached_snapshot(name)
    if snapshot is None:  # canonical_model_name found it a moment ago; only a cache cleaned since gets here
        raise AmploraError(f"model {name!r} is no longer in the Hugging Face cache at {hub_cache_dir()}")
    return snapshot


def load_model(spec: str, chat_template: str | None = None, need_template: bool = True) -> LoadedModel:
    """The fp32 base model (eval mode, on CPU) and its tokenizer; placement and precision come later (apply).
    chat_template: a template's text (chat_templates.read_chat_template) that replaces the tokenizer's own.
    need_template: refuse a tokenizer left without a template (chat data and generation need one)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # our own output says what is loading
    name = canonical_model_name(spec)
    if name == TINY_NAME:
        from amplora.train.tiny_model import build_model, build_tokenizer

        # a 64-wide model gains nothing from threads, and OpenMP threads spin-waiting on tiny ops collapse when
        # another job shares the cores: one thread keeps the smoke test seconds-long
        torch.set_num_threads(1)
        tokenizer = build_tokenizer()
        if chat_template is not None:
            tokenizer.chat_template = chat_template
        return LoadedModel(build_model(tokenizer), tokenizer, name, "tiny random-init Llama (smoke test)")
    directory = model_directory(name)
    if not any(directory.glob("*.safetensors")) and any(directory.glob("*.bin")):
        raise AmploraError(f"cannot load model from {directory}: its weights are pickled .bin files, which amplora "
                           f"does not load (loading a pickle can run code); save the model as safetensors")
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        # use_safetensors: never fall back to transformers' torch.load of pytorch_model.bin (a pickle)
        model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32, local_files_only=True,
                                                     use_safetensors=True)
    except (OSError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise AmploraError(f"cannot load model from {directory}: {first}") from None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token  # batched generation and padding need one; masked anyway
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    if need_template and not getattr(tokenizer, "chat_template", None):
        raise AmploraError(f"the tokenizer of {name} has no chat template, which chat data and generation need: "
                           f"pass --chat-template chatml (or llama3, zephyr, a Jinja file), or train on plain "
                           f"`text` data")
    if name == EMBEDDED_NAME:
        description = "SmolLM2-135M-Instruct (embedded, fp32 cache)"
    else:
        description = name if name == str(directory) else f"{name} ({directory})"
    return LoadedModel(model.eval(), tokenizer, name, description)
