"""`amplora.trainable_summary`: the counts PEFT reports for the same adapter, and the adapted modules by leaf name."""
from __future__ import annotations

import pytest
from peft import LoraConfig, get_peft_model

import amplora

from .conftest import tiny_llama

LEAVES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_counts_match_requires_grad_and_peft(method):
    model = amplora.apply(tiny_llama(), method=method, r=4, alpha=8, precision="fp32")
    s = amplora.trainable_summary(model)
    assert s.trainable == sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert s.total == sum(p.numel() for p in model.parameters())
    peft = get_peft_model(tiny_llama(), LoraConfig(r=4, lora_alpha=8, target_modules=list(LEAVES),
                                                   use_dora=method == "dora"))
    assert (s.trainable, s.total) == peft.get_nb_trainable_parameters()
    assert s.percent == pytest.approx(100 * s.trainable / s.total)
    assert set(s.modules) == set(amplora.adapter_config(model).adapted)


def test_text_is_peft_line_then_modules_grouped_by_leaf():
    model = amplora.apply(tiny_llama(), r=4, alpha=8, targets=["q_proj", "v_proj"], precision="fp32")
    s = amplora.trainable_summary(model)
    assert s.by_leaf() == {"q_proj": 2, "v_proj": 2}
    first, second = str(s).splitlines()
    assert first == f"trainable params: {s.trainable:,} || all params: {s.total:,} || trainable%: {s.percent:.4f}"
    assert second == "adapted modules: 4 (q_proj x2, v_proj x2)"
    plain = amplora.trainable_summary(tiny_llama().requires_grad_(False))
    assert plain.trainable == 0 and plain.percent == 0 and str(plain).count("\n") == 0
