"""Plan a run's memory before any weight is loaded: its peak, from the model's config and the run's settings.

    est = estimate(config, method="dora", precision="bf16-true", batch_size=8, max_length=512)
    est.total, est.parts                      # bytes; the parts say where they go

The peak of a training step is what lives between steps (frozen weights in their storage dtype, NF4 packed;
fp32 adapters; AdamW's two fp32 moments) plus the step's own highest point: the activations saved for backward,
all layers' at the end of the forward (with activation checkpointing, each layer's input and one layer
recomputed), plus the chunked fp32 loss's logits for one chunk of rows. Adapter gradients arrive while backward
frees the activations, so they count only when they outweigh them.

The per-layer terms are amplora's own (a fused adapter node keeps x and x·Aᵀ; lean norms and SwiGLU replay
what they can), measured with bench/memory_estimate.py's tensor peak on small Llama models and written in the
config's dimensions; docs/memory.md has the accuracy table. They assume a padded batch (the attention mask then
costs batch × length² per layer, and grouped-query keys and values are expanded to all heads) and every position
an answer token: the worst case of a run's steps.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from amplora.errors import AmploraError

DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
# (storage, compute) of each preset, as amplora.precision.PRESETS has them (no torch import here)
PRESETS = {"fp32": ("fp32", "fp32"), "bf16-true": ("bf16", "bf16"), "bf16-mixed": ("fp32", "bf16"),
           "fp16-mixed": ("fp32", "fp16")}
NF4_BLOCK = 64  # bitsandbytes' NF4 block: 4 bits per weight, one absmax per block (8-bit, double quantized)
# On CUDA the caching allocator reserves more than the tensors hold, and the process's context takes its share
# of the device: a stated allowance, not a measurement (the accuracy table is of the tensor peak, on CPU).
CUDA_FRAGMENTATION = 0.10
CUDA_CONTEXT = 512 * 2**20
LLAMA_LIKE = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class Settings:
    """The run's settings that move its memory; defaults as `amplora train`'s."""
    method: str = "lora"
    r: int = 16
    targets: str | tuple = "all-linear"
    quantize: str = "none"
    precision: str = "auto"  # a preset name; `auto` resolves for the device (amplora.precision's rule)
    batch_size: int = 8
    grad_accum: int = 1  # moves the global batch, not the peak
    max_length: int = 512
    activation_checkpointing: bool = False
    loss_chunk_rows: int = 1024

    @classmethod
    def of(cls, run) -> "Settings":
        """The settings of any object with same-named attributes (train's TrainConfig, argparse's namespace)."""
        values = {f.name: getattr(run, f.name) for f in fields(cls) if getattr(run, f.name, None) is not None}
        if isinstance(values.get("targets"), list):
            values["targets"] = tuple(values["targets"])
        return cls(**values)


@dataclass(frozen=True)
class Linear:
    name: str  # qualified, as in the model ("model.layers.0.self_attn.q_proj")
    fan_in: int
    fan_out: int
    bias: bool = False


@dataclass(frozen=True)
class Shape:
    """What the estimate needs of a decoder-only model, read from its config."""
    vocab: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    tied: bool
    linears: tuple  # every Linear except the output head
    other_params: int  # norms and the like (storage dtype)
    llama_like: bool = True


@dataclass
class Estimate:
    settings: Settings
    parts: dict  # bytes per part (see PARTS)
    total: int  # the tensor peak
    overhead: int = 0  # allocator and context allowance (CUDA), on top of total
    notes: list = field(default_factory=list)

    @property
    def planned(self) -> int:
        """What the device must have free: the tensor peak plus the allocator's allowance."""
        return self.total + self.overhead

    def as_dict(self) -> dict:
        s = self.settings
        return {"settings": {**s.__dict__, "targets": list(s.targets) if isinstance(s.targets, tuple)
                             else s.targets}, "parts": dict(self.parts), "total": self.total,
                "overhead": self.overhead, "planned": self.planned, "notes": list(self.notes)}


# ---- the config --------------------------------------------------------------------------------------------
def read_config(source) -> dict:
    """A config as a dict: a dict, a transformers PretrainedConfig, a config.json path or a model directory."""
    if isinstance(source, dict):
        return dict(source)
    if hasattr(source, "to_dict"):
        return source.to_dict()
    path = Path(source).expanduser()
    if path.is_dir():
        path = path / "config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AmploraError(f"no model config at {path}") from None
    except (OSError, ValueError) as e:
        raise AmploraError(f"cannot read model config {path}: {e}") from None


def shape_of(config) -> Shape:
    """The model's dimensions and Linear layers. Llama-style configs (the dimensions below present) by formula;
    any other family transformers knows by building it on the meta device (no memory, no weights)."""
    c = read_config(config)
    c = {**c, **(c.get("text_config") or {})}  # multimodal wrappers keep the language model's in text_config
    keys = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "vocab_size")
    if all(isinstance(c.get(k), int) for k in keys) and c.get("model_type") in (
            "llama", "mistral", "qwen2", "qwen3", "smollm3", "olmo2", "granite"):
        return _llama_shape(c)
    return _meta_shape(c)


def _llama_shape(c: dict) -> Shape:
    h, i, n_layers = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    heads = c["num_attention_heads"]
    kv = c.get("num_key_value_heads") or heads
    hd = c.get("head_dim") or h // heads
    qkv_bias = bool(c.get("attention_bias", c.get("model_type") == "qwen2"))
    mlp_bias = bool(c.get("mlp_bias", False))
    dims = {"q_proj": (h, heads * hd, qkv_bias), "k_proj": (h, kv * hd, qkv_bias), "v_proj": (h, kv * hd, qkv_bias),
            "o_proj": (heads * hd, h, bool(c.get("attention_bias", False))),
            "gate_proj": (h, i, mlp_bias), "up_proj": (h, i, mlp_bias), "down_proj": (i, h, mlp_bias)}
    linears = tuple(Linear(f"model.layers.{k}.{'self_attn' if n[0] in 'qkvo' else 'mlp'}.{n}", *dims[n])
                    for k in range(n_layers) for n in LLAMA_LIKE)
    norms = (2 * n_layers + 1) * h + (2 * n_layers * hd if c.get("model_type") == "qwen3" else 0)
    return Shape(vocab=c["vocab_size"], hidden=h, layers=n_layers, heads=heads, kv_heads=kv, head_dim=hd,
                 intermediate=i, tied=bool(c.get("tie_word_embeddings", False)), linears=linears,
                 other_params=norms)


def _meta_shape(c: dict) -> Shape:
    try:
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM

        rest = {k: v for k, v in c.items() if k != "model_type"}
        hf = AutoConfig.for_model(c["model_type"], **rest)
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(hf)
    except Exception as e:  # noqa: BLE001 - any failure means: not a causal LM transformers can build here
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise AmploraError(f"cannot plan memory for model type {c.get('model_type')!r}: {first}") from None
    from amplora.adapters import quant
    from amplora.adapters.targets import is_linear  # nn.Linear or GPT-2's Conv1D

    head = model.get_output_embeddings()
    emb = model.get_input_embeddings()
    linears = tuple(Linear(n, *quant.features(m), m.bias is not None)
                    for n, m in model.named_modules() if is_linear(m) and m is not head)
    seen = {id(p) for m in (head, emb) for p in m.parameters()}
    seen |= {id(p) for n, m in model.named_modules() if is_linear(m) for p in m.parameters()}
    other = sum(p.numel() for p in model.parameters() if id(p) not in seen)
    h = hf.get_text_config().hidden_size
    heads = getattr(hf, "num_attention_heads", 1)
    n_layers = getattr(hf, "num_hidden_layers", 1)
    per_layer = [x for x in linears if ".0." in x.name or x.name.startswith("0.")]
    widest = max((x.fan_out for x in per_layer if x.fan_in == h), default=4 * h)
    return Shape(vocab=emb.num_embeddings, hidden=h, layers=n_layers, heads=heads,
                 kv_heads=getattr(hf, "num_key_value_heads", heads) or heads,
                 head_dim=getattr(hf, "head_dim", None) or h // heads, intermediate=widest,
                 tied=head.weight is emb.weight, linears=linears, other_params=other, llama_like=False)


# ---- the estimate ------------------------------------------------------------------------------------------
def chosen_linears(shape: Shape, targets) -> list[Linear]:
    """The Linear layers `targets` adapts, by amplora.adapters.targets' rules."""
    from amplora.adapters.targets import matching

    if isinstance(targets, str) and "," in targets:  # --targets q_proj,v_proj, as the trainer's config reads it
        targets = [t.strip() for t in targets.split(",") if t.strip()]
    chosen = set(matching([x.name for x in shape.linears], targets))
    return [x for x in shape.linears if x.name in chosen]


def _check(s: Settings) -> None:
    if s.method not in ("lora", "dora"):
        raise AmploraError(f"unknown method {s.method!r}; valid: lora, dora")
    if s.quantize not in ("none", "nf4"):
        raise AmploraError(f"unknown quantize {s.quantize!r}; valid: none, nf4")
    if s.precision not in PRESETS:
        raise AmploraError(f"unknown precision {s.precision!r}; valid: {', '.join(PRESETS)}, auto")
    for name in ("r", "batch_size", "grad_accum", "max_length", "loss_chunk_rows"):
        if not isinstance(getattr(s, name), int) or getattr(s, name) < 1:
            raise AmploraError(f"{name} must be a positive integer, got {getattr(s, name)!r}")


def estimate(config, *, device: str = "cpu", **settings) -> Estimate:
    """The peak memory of a training step of `config` under `settings` (Settings' fields), in bytes, by part.
    `config`: a dict, PretrainedConfig, config.json path or model directory; `device`: "cpu" or "cuda[:i]"
    (CUDA adds the allocator's allowance as `overhead`)."""
    s = settings.pop("settings", None) or Settings()
    s = replace(s, **settings)
    if isinstance(s.targets, list):
        s = replace(s, targets=tuple(s.targets))
    if s.precision == "auto":
        from amplora.precision import auto_preset

        s = replace(s, precision=auto_preset(device)[0])
    _check(s)
    shape = config if isinstance(config, Shape) else shape_of(config)
    storage, compute = (DTYPE_BYTES[d] for d in PRESETS[s.precision])
    cuda = str(device).startswith("cuda")
    chosen = chosen_linears(shape, s.targets)
    h, b, n = shape.hidden, s.batch_size, s.max_length
    tokens = b * n
    notes = []

    # what lives between steps
    emb = shape.vocab * h * storage * (1 if shape.tied else 2)
    if s.quantize == "nf4":
        # every Linear but the head is quantized; the absmax per block is 8-bit with a small fp32 second level
        linear = sum(x.fan_in * x.fan_out // 2 + x.fan_in * x.fan_out // NF4_BLOCK + x.bias * x.fan_out * storage
                     for x in shape.linears)
    else:
        linear = sum((x.fan_in * x.fan_out + x.bias * x.fan_out) * storage for x in shape.linears)
    frozen = emb + linear + shape.other_params * storage
    adapter_numel = sum(s.r * (x.fan_in + x.fan_out) + (x.fan_out if s.method == "dora" else 0) for x in chosen)
    adapters = 4 * adapter_numel
    if s.method == "dora":  # per layer: the cached ‖W‖² and row norm (fp32) and g (compute dtype)
        adapters += sum(x.fan_out * (8 + compute) for x in chosen)
    optimizer = 2 * 4 * adapter_numel  # AdamW: exp_avg and exp_avg_sq, fp32
    inputs = 3 * tokens * 8  # input ids, attention mask, labels (int64)

    # the step: activations saved for backward
    per_layer = _layer_bytes(shape, s, chosen, compute, cuda)
    outside = 2 * tokens * h * compute  # the final norm's output and the answer positions' hidden states
    # a layer's backward: gradients of its widest activations (MLP and residual), alive while it runs
    layer_backward = tokens * (shape.intermediate + h) * compute
    rows = min(s.loss_chunk_rows, tokens)
    loss = 2 * rows * shape.vocab * 4  # one chunk's fp32 logits and their log-softmax (or its gradient)
    if storage != 4:
        loss += shape.vocab * h * 4  # the head's weight, widened to fp32 for the loss
    if compute != 4:
        loss += rows * h * 4
    if s.activation_checkpointing:  # each layer's input; one layer recomputed at a time, after the loss's turn
        activations = shape.layers * tokens * h * compute + outside
        step = activations + max(loss, per_layer + layer_backward)
        activations += per_layer
    else:  # the loss's backward runs first, with every layer's activations alive
        activations = shape.layers * per_layer + outside
        step = activations + max(loss, layer_backward)
    gradients = 4 * adapter_numel  # they arrive as backward frees activations: at the peak only if larger
    step = max(step, gradients + per_layer + layer_backward)
    parts = {"frozen weights": frozen, "adapters": adapters, "optimizer state": optimizer, "inputs": inputs,
             "activations": activations, "loss": loss, "gradients": gradients}
    total = frozen + adapters + optimizer + inputs + step
    overhead = int(CUDA_FRAGMENTATION * total) + CUDA_CONTEXT if cuda else 0
    if not shape.llama_like:
        notes.append("activations estimated from the Linear shapes (not a Llama-style family: less exact)")
    return Estimate(s, parts, int(total), overhead, notes)


def _layer_bytes(shape: Shape, s: Settings, chosen: list[Linear], compute: int, cuda: bool) -> int:
    """Bytes one decoder layer keeps for backward at the end of the forward. Per token, in the compute dtype:
    the residual stream and its norms' replay state (2·hidden), queries, keys and values expanded to all heads and
    the attention output (4·q), SwiGLU's gate and up outputs (2·intermediate), and x·Aᵀ of each adapted layer
    (r each); in fp32: attention's log-sum-exp per head and the two norms' 1/rms; per sequence, the attention mask
    (length², compute dtype). DoRA keeps an output per adapted layer where nothing else does (on CUDA, where
    the node does not check g for zeros, its z of every layer)."""
    b, n = s.batch_size, s.max_length
    tokens = b * n
    q = shape.heads * shape.head_dim
    layer0 = [x for x in chosen if _layer_index(x.name) == 0] if shape.layers else []
    per_token = 2 * shape.hidden + 4 * q + 2 * shape.intermediate + s.r * len(layer0)
    if s.method == "dora":  # less the residual sum a lean norm then replays from o_proj's kept output
        kept_anyway = () if cuda else ("gate_proj", "up_proj")  # SiLU keeps those outputs (kernels.py)
        per_token += sum(x.fan_out for x in layer0 if x.name.rsplit(".", 1)[-1] not in kept_anyway)
        per_token -= shape.hidden if any(x.name.endswith("o_proj") for x in layer0) else 0
    if not shape.llama_like:  # every Linear's input and output, the plain-autograd bound
        widths = [x for x in shape.linears if _layer_index(x.name) == 0]
        per_token = sum(x.fan_in + x.fan_out for x in widths) + s.r * len(layer0)
    return tokens * (per_token * compute + 4 * (shape.heads + 2)) + b * n * n * compute


def _layer_index(name: str) -> int | None:
    m = re.search(r"\.(\d+)\.", "." + name + ".")
    return int(m.group(1)) if m else None
