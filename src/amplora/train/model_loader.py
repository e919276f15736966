"""`--model`: the embedded default (`smollm2-135m`), `tiny`, or a local Hugging Face model directory.

Everything loads from local files only (HF_HUB_OFFLINE=1 unless the user set it): a run never downloads.
The returned `name` is what an adapter records as `base_model_name_or_path`, so `generate` / `chat` / `merge` /
`eval` can rebuild the same base later.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from amplora.errors import AmploraError  # noqa: E402
from amplora.train.embedded_model import EMBEDDED_ALIASES, EMBEDDED_NAME, cached_model_dir  # noqa: E402
from amplora.train.tiny_model import TINY_NAME  # noqa: E402


@dataclass
class LoadedModel:
    model: object
    tokenizer: object
    name: str  # canonical spec: "smollm2-135m", "tiny" or an absolute directory
    description: str


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
    raise AmploraError(f"unknown model {spec!r}: use {EMBEDDED_NAME} (embedded default), {TINY_NAME} "
                       f"(seconds-long smoke test) or a local Hugging Face model directory")


def load_model(spec: str) -> LoadedModel:
    """The fp32 base model (eval mode, on CPU) and its tokenizer; placement and precision come later (apply)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # our own output says what is loading
    name = canonical_model_name(spec)
    if name == TINY_NAME:
        from amplora.train.tiny_model import build_model, build_tokenizer

        # a 64-wide model gains nothing from threads, and OpenMP threads spin-waiting on tiny ops collapse
        # (10x and worse) when another job shares the cores: one thread keeps the smoke test seconds-long
        torch.set_num_threads(1)
        tokenizer = build_tokenizer()
        return LoadedModel(build_model(tokenizer), tokenizer, name, "tiny random-init Llama (smoke test)")
    directory = cached_model_dir() if name == EMBEDDED_NAME else Path(name)
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
    if not getattr(tokenizer, "chat_template", None):
        raise AmploraError(f"the tokenizer in {directory} has no chat template; amplora formats data with it")
    description = "SmolLM2-135M-Instruct (embedded, fp32 cache)" if name == EMBEDDED_NAME else str(directory)
    return LoadedModel(model.eval(), tokenizer, name, description)
