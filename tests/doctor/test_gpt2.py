"""The doctor on GPT-2, whose Linear layers are transformers Conv1D (W stored (in, out))."""
from __future__ import annotations

import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel

import amplora
import amplora.doctor as doctor
from amplora.doctor import PrecisionFault
from amplora.doctor.explain import explain
from amplora.doctor.memory import estimate

CONFIG = dict(model_type="gpt2", vocab_size=256, n_positions=64, n_embd=32, n_layer=2, n_head=4)


def _model() -> GPT2LMHeadModel:
    torch.manual_seed(0)
    return GPT2LMHeadModel(GPT2Config(**{k: v for k, v in CONFIG.items() if k != "model_type"})).eval()


def test_a_conv1d_left_in_bf16_is_named():
    model = _model()
    model.transformer.h[1].mlp.c_fc.to(torch.bfloat16)
    with pytest.raises(PrecisionFault) as info:
        with doctor.watch(model):
            model(torch.randint(0, 256, (1, 8)))
    f = info.value
    assert f.phase == "forward" and f.module == "transformer.h.1.mlp.c_fc"
    assert "transformer.h.1.mlp.c_fc.weight" in " ".join(o.origin for o in f.operands) + f.culprit
    e = explain(str(f.__cause__))  # Conv1D's addmm message, as `amplora explain` gets it
    assert e.recognized and set(e.dtypes) == {"bf16", "fp32"}


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_memory_plan_counts_the_conv1d_adapters(method):
    est = estimate(CONFIG, method=method, r=4, precision="fp32", batch_size=2, max_length=16)
    model = amplora.apply(_model(), method=method, r=4, precision="fp32")
    numel = sum(p.numel() for _, p in amplora.trainable_parameters(model))
    dora_cache = sum(layer.out_features * (8 + 4) for layer in amplora.lora_layers(model).values())
    assert est.parts["adapters"] == 4 * numel + (dora_cache if method == "dora" else 0)
    assert est.parts["optimizer state"] == 8 * numel
