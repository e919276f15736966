"""`apply`: put LoRA / DoRA adapters (optionally over an NF4 base) into a transformers model, in place."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import warnings

import torch
import torch.nn as nn

from amplora.adapters import boundary, fast, quant, targets as targets_mod
from amplora.adapters.fast import lean, siblings
from amplora.adapters.layers import LoraLinear
from amplora.errors import AmploraError
from amplora.precision import Precision, resolve

METHODS = ("lora", "dora")
QUANTIZE = (None, "nf4")
INITS = ("default", "gaussian", "pissa")
PATHS = ("fused", "plain")


@dataclass
class AdapterConfig:
    method: str = "lora"
    r: int = 16
    alpha: float = 32
    targets: list[str] = field(default_factory=list)  # resolved: qualified names of adapted modules
    dropout: float = 0.0
    quantize: str | None = None
    init: str = "default"
    rslora: bool = False
    precision: str = "fp32"
    path: str = "fused"  # how the adapted layers run: "fused" (adapters/fast) or "plain" (plain autograd)

    def as_dict(self) -> dict:
        return asdict(self)


def adapter_config(model: nn.Module) -> AdapterConfig | None:
    return getattr(model, "_amplora_config", None)


def lora_layers(model: nn.Module) -> dict[str, LoraLinear]:
    return {name: m for name, m in model.named_modules() if isinstance(m, LoraLinear)}


def trainable_parameters(model: nn.Module) -> list[tuple[str, nn.Parameter]]:
    """The fp32 adapter parameters (what an optimizer should see)."""
    return [(n, p) for n, p in model.named_parameters() if p.requires_grad]


def _check_args(method, r, alpha, dropout, quantize, init, path) -> None:
    if method not in METHODS:
        raise AmploraError(f"unknown method {method!r}; valid: {', '.join(METHODS)}")
    if quantize not in QUANTIZE:
        raise AmploraError(f"unknown quantize {quantize!r}; valid: none, nf4")
    if path not in PATHS:
        raise AmploraError(f"unknown path {path!r}; valid: {', '.join(PATHS)}")
    if init not in INITS:
        raise AmploraError(f"unknown init {init!r}; valid: {', '.join(INITS)}")
    if not isinstance(r, int) or r <= 0:
        raise AmploraError(f"rank r must be a positive integer, got {r!r}")
    if alpha <= 0:
        raise AmploraError(f"alpha must be positive, got {alpha!r}")
    if not 0.0 <= dropout < 1.0:
        raise AmploraError(f"dropout must be in [0, 1), got {dropout!r}")
    if init == "pissa" and method != "lora":
        raise AmploraError("init='pissa' is defined for method='lora' only")


def cast_storage(model: nn.Module, dtype: torch.dtype) -> None:
    """Frozen base to the policy's storage dtype. In place on .data, so tied weights stay tied.
    Floating buffers (rotary inv_freq and the like) are small constants that models read in fp32: keep them fp32."""
    for p in model.parameters():
        if p.is_floating_point() and p.dtype != dtype:
            p.data = p.data.to(dtype)
    for mod in model.modules():
        for key, buf in mod._buffers.items():
            if buf is not None and buf.is_floating_point() and buf.dtype != torch.float32:
                mod._buffers[key] = buf.float()


def pissa_init(base: nn.Module, r: int, scaling: float, storage: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """PiSSA: top-r singular triplets go to the adapter, the residual stays in the base.
    The SVD runs in fp32 whatever the model dtype: CPU has no half-precision SVD kernels (failure S003)."""
    w = quant.dense_weight(base)
    with fast.no_autocast(w):  # a caller's autocast region would run b @ a in its half dtype
        u, s, vh = torch.linalg.svd(w, full_matrices=False)
        root = (s[:r] / scaling).sqrt()
        b = u[:, :r] * root
        a = root.unsqueeze(1) * vh[:r]
        quant.replace_weight(base, (w - scaling * (b @ a)).to(storage))
    return a, b


def apply(model: nn.Module, method: str = "lora", r: int = 16, alpha: float = 32,
          targets: str | Sequence[str] = "all-linear", dropout: float = 0.0, quantize: str | None = None,
          precision: str | Precision = "auto", init: str = "default", rslora: bool = False,
          lean_modules: bool = True, path: str = "fused") -> nn.Module:
    """Add adapters to `model` in place and put it under `precision`; returns the same model.
    lean_modules: replace RMSNorm and SwiGLU modules by bit-identical ones that keep less for backward
    (adapters/fast/lean.py); False leaves the transformers modules in place.
    path: "fused" runs the adapted layers on the fast path (adapters/fast: one autograd node per layer or group of
    siblings); "plain" runs them as plain autograd (adapters/layers.py), the reference. "fused" becomes "plain",
    with a warning, on a torch whose internals the fast path relies on have changed (fast.available())."""
    method = str(method).lower()
    quantize = None if quantize in (None, "", "none") else str(quantize).lower()
    path = str(path).lower()
    _check_args(method, r, alpha, dropout, quantize, init, path)
    if path == "fused" and not fast.available():
        warnings.warn("amplora: this torch changed internals the fused path reads (adapters/fast/torch_private.py);"
                      " the adapters run as plain autograd", stacklevel=2)
        path = "plain"
    if lora_layers(model):
        raise AmploraError("model already has amplora adapters; merge them or start from a fresh model")
    device = next(model.parameters()).device
    policy = resolve(precision, device=device)
    chosen = targets_mod.select(model, targets)
    if quantize is None and any(quant.is_nf4(m) for m in chosen.values()):
        quantize = "nf4"  # the model came in already quantized (transformers + BitsAndBytesConfig)

    model.requires_grad_(False)
    scaling = alpha / (r ** 0.5) if rslora else alpha / r
    pissa = {name: pissa_init(m, r, scaling, policy.storage) for name, m in chosen.items()} if init == "pissa" else {}
    cast_storage(model, policy.storage)
    if quantize == "nf4":
        for name, m in targets_mod.candidate_linears(model).items():
            if not quant.is_nf4(m):
                targets_mod.set_module(model, name, quant.quantize_nf4(m, policy.compute, policy.storage))
    if lean_modules:
        lean.install(model)  # after the casts: the probe compares outputs in the dtypes training will use
    for name in chosen:
        base = model.get_submodule(name)
        if quant.is_nf4(base):
            base.compute_dtype = policy.compute  # bnb computes in this dtype; the policy decides it
        layer = LoraLinear(base, r=r, alpha=alpha, dropout=dropout, dora=method == "dora", rslora=rslora,
                           precision=policy, fast=False)
        layer.reset_parameters(init if init != "pissa" else "default")
        if name in pissa:
            a, b = pissa[name]
            with torch.no_grad():
                layer.lora_A.weight.copy_(a)
                layer.lora_B.weight.copy_(b)
            layer.register_buffer("pissa_A0", a.clone(), persistent=False)  # to save as a plain-LoRA delta
            layer.register_buffer("pissa_B0", b.clone(), persistent=False)
        targets_mod.set_module(model, name, layer)

    clock = None
    if path == "fused":
        clock = fast.Clock()  # one for the model, ticked at its boundary (fast/layer.py)
        for layer in lora_layers(model).values():
            layer.fast = fast.FastLayer(layer, clock)
        siblings.link(model)  # q/k/v and gate/up: one node each (fast/siblings.py)
    boundary.install(model, policy, clock)
    model._amplora_config = AdapterConfig(method=method, r=r, alpha=alpha, targets=sorted(chosen), dropout=dropout,
                                          quantize=quantize, init=init, rslora=rslora, precision=policy.name,
                                          path=path)
    return model
