"""Shared fixtures for the adapter tests: a tiny random-init Llama and an fp32 PEFT reference."""
from __future__ import annotations

import copy
import os
from dataclasses import replace

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

import amplora
from amplora.adapters import quant

os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch.set_num_threads(min(2, torch.get_num_threads()))

# Where the device-aware tests (the precision matrix, the kernel checks, the five regressions) run: the CPU in CI;
# `AMPLORA_TEST_DEVICE=cuda` runs them on a GPU (bench/gpu.sh does). Their fp32 references run there too.
DEVICE = torch.device(os.environ.get("AMPLORA_TEST_DEVICE", "cpu"))
VOCAB = 256
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# Relative tolerance on logits (max |diff| / max |ref|) against an fp32 reference, by compute dtype.
# bf16 has 8 mantissa bits (eps 7.8e-3), fp16 has 11 (eps 9.8e-4); two layers of error accumulate.
TOL = {torch.float32: 1e-4, torch.bfloat16: 5e-2, torch.float16: 1e-2}


def policy(compute: torch.dtype) -> amplora.Precision:
    """A policy computing in `compute`, for a layer built alone (LoraLinear reads compute and master from it)."""
    return replace(amplora.PRESETS["fp32"], name=f"compute-{compute}", compute=compute)


def tiny_config(**kw) -> LlamaConfig:
    base = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=128, tie_word_embeddings=False,
                pad_token_id=0, bos_token_id=1, eos_token_id=2)
    base.update(kw)
    return LlamaConfig(**base)


def tiny_llama(seed: int = 0, **kw) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    model = LlamaForCausalLM(tiny_config(**kw)).eval()
    widen_weights(model)
    return model


def widen_weights(model: torch.nn.Module) -> None:
    """Random-init weights are tiny (std 0.02): widen the matrices so logits are not flat."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0, 0.08)


@pytest.fixture(scope="session")
def base_fp32() -> LlamaForCausalLM:
    return tiny_llama()


@pytest.fixture
def ids() -> torch.Tensor:
    g = torch.Generator().manual_seed(1)
    return torch.randint(3, VOCAB, (2, 16), generator=g).to(DEVICE)


def perturb_adapters(model, seed: int = 2, scale: float = 0.1) -> None:
    """Make B nonzero (and move the magnitude) so the adapter actually changes the output."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in amplora.trainable_parameters(model):
            p.add_(torch.randn(p.shape, generator=g).to(p.device) * scale)


def rel_err(a: torch.Tensor, b: torch.Tensor) -> float:
    a, b = a.detach().float().cpu(), b.detach().float().cpu()
    return ((a - b).abs().max() / b.abs().max()).item()


def dense_fp32_twin(model, template) -> LlamaForCausalLM:
    """An fp32 plain model holding exactly the base weights `model` computes with (rounded to its storage dtype,
    or dequantized from NF4), on `model`'s device: the reference that isolates precision error from quantization
    error."""
    twin = copy.deepcopy(template).float().to(next(model.parameters()).device)
    adapted = {n: m for n, m in model.named_modules()}
    with torch.no_grad():
        for name, p in twin.named_parameters():
            path, _, leaf = name.rpartition(".")
            mod = adapted[path]
            if isinstance(mod, amplora.LoraLinear):
                mod = mod.base_layer
            if leaf == "weight" and quant.is_nf4(mod):  # (out, in); a Conv1D's twin stores it transposed
                w = quant.dense_weight(mod)
                p.copy_(w.t() if quant.from_conv1d(mod) else w)
            else:
                p.copy_(getattr(mod, leaf).detach().float())
        for name, b in twin.named_buffers():  # e.g. rotary inv_freq, rounded if the user loaded in half
            path, _, leaf = name.rpartition(".")
            b.copy_(getattr(adapted[path], leaf).float())
    return twin
