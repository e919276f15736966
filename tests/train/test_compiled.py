"""`amplora train --compile`: each decoder layer compiled for the training steps (CUDA graphs on a GPU)."""
from __future__ import annotations

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

from amplora.train import compiled
from amplora.train.batches import Row, collate
from amplora.train.encoding import IGNORE
import amplora

from .conftest import FAST, read_metrics, run_cli


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_compiled_training_gives_the_eager_losses(tmp_path, alpaca_file, method):
    """The compiled layers run the same fp32 operations; widths padded to 64 add only masked, unlabelled tokens."""
    runs = {}
    for flag in ([], ["--compile"]):
        out = tmp_path / ("compiled" if flag else "eager")
        assert run_cli("train", *FAST, "--method", method, "--precision", "fp32", "--dropout", "0", "--data",
                       alpaca_file, "--output", out, "--quiet", *flag) == 0
        runs[bool(flag)] = out
    losses = [[r["loss"] for r in read_metrics(runs[k]) if r["kind"] == "train"] for k in (False, True)]
    assert len(losses[0]) == len(losses[1]) > 1
    assert losses[1] == pytest.approx(losses[0], rel=1e-4, abs=0)  # fp32 sums in another order
    assert "compile: true" in (runs[True] / "config.yaml").read_text()


def test_one_compile_serves_every_layer():
    """The layers share their code: a step compiles one graph for the first layer (its input needs no grad) and one
    for the rest, however many layers; generation (no grad) stays eager."""
    torch._dynamo.reset()
    counters.clear()
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=4,
                         num_attention_heads=4, num_key_value_heads=2)
    model = amplora.apply(LlamaForCausalLM(config), r=4, alpha=8, precision="fp32")
    layers = compiled.compile_layers(model, torch.device("cpu"))
    assert layers == 4
    ids = torch.randint(model.config.vocab_size, (2, compiled.BUCKET))
    model.train()
    model(input_ids=ids, labels=ids, use_cache=False).loss.backward()
    assert counters["stats"]["unique_graphs"] == 2
    model.eval()
    with torch.no_grad():
        model.generate(ids[:, :8], max_new_tokens=3, do_sample=False)
    assert counters["stats"]["unique_graphs"] == 2


def test_widths_are_padded_to_the_bucket_with_masked_unlabelled_tokens():
    rows = [Row([5] * 70, [7] * 70, list(range(70))), Row([5] * 3, [7] * 3, list(range(3)))]
    batch = collate(rows, pad_id=0, packing=False, device="cpu", bucket=64)
    assert batch["input_ids"].shape == (2, 128) and batch["tokens"] == 73
    assert (batch["labels"][:, 70:] == IGNORE).all() and batch["attention_mask"].sum() == 73
    assert collate(rows, pad_id=0, packing=False, device="cpu")["input_ids"].shape == (2, 70)


@pytest.mark.parametrize("other, said", [(["--quantize", "nf4"], "a quantized base"),
                                         (["--activation-checkpointing"], "activation_checkpointing")])
def test_compile_refuses_what_it_does_not_combine_with(tmp_path, capsys, other, said):
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--compile", *other, "--output", out, "--quiet") == 2
    assert f"compile does not combine with {said}" in capsys.readouterr().err
    assert not out.exists()
