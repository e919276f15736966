"""`apply`: put LoRA / DoRA adapters (optionally over an NF4 base) into a transformers model, in place."""
from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import torch
import torch.nn as nn

from amplora.adapters import boundary, fast, peft_config, peft_rules, quant, targets as targets_mod
from amplora.adapters.fast import lean, siblings
from amplora.adapters.layers import LoraLinear
from amplora.errors import AmploraError
from amplora.precision import Precision, resolve

METHODS = ("lora", "dora")
QUANTIZE = (None, "nf4")
INITS = ("default", "gaussian", "random", "pissa")  # "random": A and B as nn.Linear initializes them (PEFT's False)
BIAS = ("none", "lora_only", "all")
PATHS = ("fused", "plain")


@dataclass
class AdapterConfig:
    method: str = "lora"
    r: int = 16
    alpha: float = 32
    targets: str | list[str] = "all-linear"  # as asked: "all-linear", names, or a regex
    adapted: list[str] = field(default_factory=list)  # resolved: qualified names of adapted modules
    dropout: float = 0.0
    quantize: str | None = None
    init: str = "default"
    rslora: bool = False
    precision: str = "fp32"
    path: str = "fused"  # how the adapted layers run: "fused" (adapters/fast) or "plain" (plain autograd)
    # PEFT's per-module options (docs/peft-compat.md), with PEFT's names and meaning
    rank_pattern: dict = field(default_factory=dict)
    alpha_pattern: dict = field(default_factory=dict)
    exclude_modules: str | list[str] | None = None
    layers_to_transform: int | list[int] | None = None
    layers_pattern: str | list[str] | None = None
    modules_to_save: list[str] | None = None  # trained full copies: the qualified names are in `saved`
    saved: list[str] = field(default_factory=list)
    bias: str = "none"
    task_type: str | None = "CAUSAL_LM"

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
    for p in model.parameters():  # trainable ones (modules_to_save copies) stay fp32 masters
        if p.is_floating_point() and p.dtype != dtype and not p.requires_grad:
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


def _check_peft_options(targets, options: dict) -> None:
    """PEFT's per-module options, with PEFT's own rules for them; one line naming the option."""
    def bad(key, want):
        raise AmploraError(f"{key} must be {want}, got {options[key]!r}")

    peft_config.check_shapes(options, bad)
    peft_rules.check_regexes("", options)
    if options["layers_to_transform"] is not None and isinstance(targets, str) and not targets_mod.is_name(targets):
        bad("layers_to_transform", "used with target names, not with 'all-linear' or a regex (as in PEFT)")


def _select(model: nn.Module, targets, options: dict) -> dict[str, nn.Linear]:
    """The Linear modules to adapt: `targets`, less what exclude_modules, modules_to_save and layers_to_transform
    take away (PEFT's rules: adapters/peft_rules.py)."""
    def keep(name: str) -> bool:
        if peft_rules.excluded(name, options["exclude_modules"]):
            return False
        if peft_rules.inside_saved(name, options["modules_to_save"]):
            return False
        explicit = name in ([targets] if isinstance(targets, str) else targets)
        return explicit or peft_rules.in_layers(name, options["layers_to_transform"], options["layers_pattern"])

    candidates = targets_mod.candidate_linears(model)
    named = targets_mod.matching(list(candidates), targets)
    chosen = {name: candidates[name] for name in named if keep(name)}
    if not chosen:
        raise AmploraError(f"targets {targets!r} matched {len(named)} Linear modules, and exclude_modules, "
                           "modules_to_save or layers_to_transform left none of them")
    return chosen


def _shapes(chosen, r: int, alpha: float, options: dict) -> dict[str, tuple[int, float]]:
    """Each module's (rank, alpha): rank_pattern / alpha_pattern override r / alpha by PEFT's matching rule. A
    pattern that matches no adapted module is an error (a typo would silently keep the default)."""
    for key in ("rank_pattern", "alpha_pattern"):
        for pattern in options[key] or {}:
            if not any(peft_rules.pattern_key([pattern], name) for name in chosen):
                raise AmploraError(f"{key} key {pattern!r} matches no adapted module")
    return {name: (peft_rules.per_module(name, r, options["rank_pattern"] or {}),
                   peft_rules.per_module(name, alpha, options["alpha_pattern"] or {})) for name in chosen}


def _saved_names(model: nn.Module, modules_to_save) -> list[str]:
    """The modules `modules_to_save` names, by PEFT's rule; an entry that names none, or one module inside another,
    is an error."""
    if not modules_to_save:
        return []
    saved = peft_rules.saved_modules([n for n, _ in model.named_modules()], modules_to_save)
    for entry in modules_to_save:
        if not any(n.endswith(entry) for n in saved):
            raise AmploraError(f"modules_to_save entry {entry!r} names no module of this model")
    for name in saved:
        outer = next((o for o in saved if name.startswith(o + ".")), None)
        if outer is not None:
            raise AmploraError(f"modules_to_save: {name!r} lies inside {outer!r}, which is saved whole already")
    return saved


def _copy_saved(model: nn.Module, saved: list[str], master: torch.dtype) -> None:
    """Each modules_to_save module becomes a trainable copy in the master dtype (a copy, as PEFT makes one: an
    lm_head tied to the embeddings trains apart from them)."""
    for name in saved:
        copy_ = copy.deepcopy(model.get_submodule(name))
        for p in copy_.parameters():
            if p.is_floating_point():
                p.data = p.data.to(master)
                p.requires_grad_(True)
        targets_mod.set_module(model, name, copy_)


def _bias_values(model: nn.Module, chosen: dict, bias: str) -> dict[str, torch.Tensor]:
    """The biases bias='lora_only' / 'all' trains, fp32 copies by their names once adapted (an adapted layer's bias
    is `<path>.base_layer.bias`, as in PEFT): taken before the storage cast and NF4 rebuild round them."""
    if bias == "none":
        return {}
    if bias == "lora_only":
        return {f"{name}.base_layer.bias": m.bias.detach().float().clone() for name, m in chosen.items()
                if m.bias is not None}
    moved = {f"{name}.bias": f"{name}.base_layer.bias" for name in chosen}
    return {moved.get(n, n): p.detach().float().clone() for n, p in model.named_parameters()
            if n == "bias" or n.endswith(".bias")}


def _train_biases(model: nn.Module, values: dict[str, torch.Tensor], master: torch.dtype) -> None:
    """The biases of `values` (PEFT's bias option) train, as masters like the adapters, from their exact values."""
    params = dict(model.named_parameters())
    for name, value in values.items():
        p = params[name]
        p.data = value.to(device=p.device, dtype=master)
        p.requires_grad_(True)


def apply(model: nn.Module, method: str = "lora", r: int = 16, alpha: float = 32,
          targets: str | Sequence[str] = "all-linear", dropout: float = 0.0, quantize: str | None = None,
          precision: str | Precision = "auto", init: str = "default", rslora: bool = False,
          lean_modules: bool = True, path: str = "fused", *, rank_pattern: dict | None = None,
          alpha_pattern: dict | None = None, exclude_modules: str | Sequence[str] | None = None,
          layers_to_transform: int | Sequence[int] | None = None, layers_pattern: str | Sequence[str] | None = None,
          modules_to_save: Sequence[str] | None = None, bias: str = "none") -> nn.Module:
    """Add adapters to `model` in place and put it under `precision`; returns the same model.
    lean_modules: replace RMSNorm and SwiGLU modules by bit-identical ones that keep less for backward
    (adapters/fast/lean.py); False leaves the transformers modules in place.
    path: "fused" runs the adapted layers on the fast path (adapters/fast: one autograd node per layer or group of
    siblings); "plain" runs them as plain autograd (adapters/layers.py), the reference. "fused" becomes "plain",
    with a warning, on a torch whose internals the fast path relies on have changed (fast.available()).
    init: "default" (A Kaiming-uniform, B zero), "gaussian" (A normal with std 1/r), "random" (A and B as
    nn.Linear initializes them: not a no-op; PEFT's init_lora_weights=False) or "pissa".
    PEFT's LoraConfig options, with PEFT's meaning (docs/peft-compat.md): rank_pattern / alpha_pattern (per-module
    rank and alpha), exclude_modules, layers_to_transform / layers_pattern, modules_to_save (trained full copies of
    e.g. lm_head or score) and bias ("lora_only": the adapted layers' biases train; "all": every bias trains)."""
    method = str(method).lower()
    quantize = None if quantize in (None, "", "none") else str(quantize).lower()
    path = str(path).lower()
    _check_args(method, r, alpha, dropout, quantize, init, path)
    targets = list(targets) if not isinstance(targets, str) else targets
    options = {"rank_pattern": dict(rank_pattern or {}), "alpha_pattern": dict(alpha_pattern or {}),
               "exclude_modules": exclude_modules if isinstance(exclude_modules, (str, type(None)))
               else list(exclude_modules),
               "layers_to_transform": layers_to_transform if isinstance(layers_to_transform, (int, type(None)))
               else list(layers_to_transform),
               "layers_pattern": layers_pattern if isinstance(layers_pattern, (str, type(None)))
               else list(layers_pattern),
               "modules_to_save": None if modules_to_save is None else list(modules_to_save), "bias": bias}
    _check_peft_options(targets, options)
    if path == "fused" and not fast.available():
        warnings.warn("amplora: this torch changed internals the fused path reads (adapters/fast/torch_private.py);"
                      " the adapters run as plain autograd", stacklevel=2)
        path = "plain"
    if lora_layers(model):
        raise AmploraError("model already has amplora adapters; merge them or start from a fresh model")
    device = next(model.parameters()).device
    policy = resolve(precision, device=device)
    chosen = _select(model, targets, options)
    shapes = _shapes(chosen, r, alpha, options)
    saved = _saved_names(model, options["modules_to_save"])
    if quantize is None and any(quant.is_nf4(m) for m in chosen.values()):
        quantize = "nf4"  # the model came in already quantized (transformers + BitsAndBytesConfig)
    if quantize == "nf4" and bias != "none" and any(m.bias is not None
                                                    for m in targets_mod.candidate_linears(model).values()):
        # bitsandbytes casts a Linear4bit's bias to its compute dtype in place on every call
        raise AmploraError(f"bias={bias!r} over an NF4 base: bitsandbytes would turn the trained biases into "
                           "half precision; use quantize=None or bias='none'")

    model.requires_grad_(False)
    biases = _bias_values(model, chosen, bias)
    _copy_saved(model, saved, policy.master)  # before the casts: exact copies
    pissa = {}
    if init == "pissa":
        for name, m in chosen.items():
            r_m, alpha_m = shapes[name]
            pissa[name] = pissa_init(m, r_m, alpha_m / (r_m ** 0.5) if rslora else alpha_m / r_m, policy.storage)
    cast_storage(model, policy.storage)
    if quantize == "nf4":
        for name, m in targets_mod.candidate_linears(model).items():
            if not quant.is_nf4(m) and not peft_rules.inside_saved(name, options["modules_to_save"]):
                targets_mod.set_module(model, name, quant.quantize_nf4(m, policy.compute, policy.storage))
    if lean_modules:
        lean.install(model)  # after the casts: the probe compares outputs in the dtypes training will use
    for name in chosen:
        base = model.get_submodule(name)
        if quant.is_nf4(base):
            base.compute_dtype = policy.compute  # bnb computes in this dtype; the policy decides it
        r_m, alpha_m = shapes[name]
        layer = LoraLinear(base, r=r_m, alpha=alpha_m, dropout=dropout, dora=method == "dora", rslora=rslora,
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
    _train_biases(model, biases, policy.master)

    clock = None
    if path == "fused":
        clock = fast.Clock()  # one for the model, ticked at its boundary (fast/layer.py)
        for layer in lora_layers(model).values():
            layer.fast = fast.FastLayer(layer, clock)
        siblings.link(model)  # q/k/v and gate/up: one node each (fast/siblings.py)
    boundary.install(model, policy, clock)
    model._amplora_config = AdapterConfig(method=method, r=r, alpha=alpha, targets=targets, adapted=sorted(chosen),
                                          dropout=dropout, quantize=quantize, init=init, rslora=rslora,
                                          precision=policy.name, path=path, saved=saved, **options)
    from amplora.adapters import pretrained  # it imports this module

    pretrained.bind(model)  # save_pretrained (and so transformers.Trainer) writes the adapter, PEFT's way
    return model
