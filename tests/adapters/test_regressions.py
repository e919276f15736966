"""The five reported failures of PRECISION.md (S000–S004), on DEVICE (the CPU in CI; a GPU with
AMPLORA_TEST_DEVICE=cuda). S003 is about the CPU and stays there.

Each test runs the reported setup through amplora with no workaround in the test code: no autocast block
around the user's calls, no dtype patches.
"""
from __future__ import annotations

import copy

import pytest
import torch
from transformers import Trainer, TrainerCallback, TrainingArguments

import amplora

from .conftest import DEVICE, TOL, dense_fp32_twin, perturb_adapters, rel_err, tiny_llama


def test_S000_dora_under_bf16_trains(base_fp32, ids, tmp_path):
    """LLaMA-Factory, DoRA, bf16: 'self and mat2 must have the same dtype, but got BFloat16 and Float'."""
    from peft import PeftModel

    for preset in ("bf16-true", "bf16-mixed"):
        model = amplora.apply(copy.deepcopy(base_fp32).to(DEVICE, torch.bfloat16), method="dora", r=4, alpha=8,
                              precision=preset)
        perturb_adapters(model)
        layer = amplora.lora_layers(model)["model.layers.0.mlp.down_proj"]
        assert layer.lora_magnitude_vector.dtype == torch.float32  # the fp32 magnitude that used to meet bf16
        opt = torch.optim.AdamW([p for _, p in amplora.trainable_parameters(model)], lr=1e-2)
        for _ in range(2):
            out = model(ids, labels=ids)
            out.loss.backward()
            opt.step()
            opt.zero_grad()
        assert torch.isfinite(out.loss)
        amplora.save_adapter(model, tmp_path / preset)
        ref = PeftModel.from_pretrained(dense_fp32_twin(model, base_fp32), tmp_path / preset)
        with torch.no_grad():
            assert rel_err(model(ids).logits, ref(ids).logits) < TOL[torch.bfloat16]


def test_S001_qlora_generate_inside_trainer_callback(tmp_path):
    """PEFT QLoRA, bf16, model.generate() inside a TrainerCallback: 'expected mat1 and mat2 to have the same
    dtype'. The Trainer runs steps under its own bf16 autocast; the callback's generate() runs outside it."""
    model = amplora.apply(tiny_llama().to(DEVICE, torch.bfloat16), method="lora", r=4, alpha=8, quantize="nf4",
                          precision="bf16-true")
    g = torch.Generator().manual_seed(0)
    rows = [{"input_ids": x, "labels": x} for x in torch.randint(3, 256, (8, 12), generator=g)]
    generated = []

    class GenerateEveryStep(TrainerCallback):
        def on_step_end(self, args, state, control, model=None, **kw):
            assert not torch.is_autocast_enabled(DEVICE.type)  # really outside the Trainer's autocast
            prompt = rows[0]["input_ids"][None, :4].to(DEVICE)
            generated.append(model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3,
                                            do_sample=False, pad_token_id=0))

    args = TrainingArguments(output_dir=str(tmp_path), bf16=True, use_cpu=DEVICE.type == "cpu", max_steps=3,
                             per_device_train_batch_size=4, learning_rate=1e-3, report_to=[], save_strategy="no",
                             logging_steps=1, dataloader_num_workers=0, disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=rows, callbacks=[GenerateEveryStep()])
    result = trainer.train()
    assert len(generated) == 3 and all(x.shape == (1, 7) for x in generated)
    assert torch.isfinite(torch.tensor(result.training_loss))


def test_S002_backward_dtypes_by_construction(base_fp32, ids):
    """Unsloth fused LoRA backward, bf16: 'Expected out tensor to have dtype BFloat16, but got Float'.
    Every gradient leaves the adapter in the dtype of what it differentiates: input grads in the activation's
    dtype, adapter grads in fp32 — in a bf16-true model (bf16 activations) and a bf16-mixed one (fp32 stream)."""
    for preset, stream in (("bf16-true", torch.bfloat16), ("bf16-mixed", torch.float32)):
        model = amplora.apply(copy.deepcopy(base_fp32).to(DEVICE), method="lora", r=4, alpha=8, precision=preset)
        perturb_adapters(model)
        embeds = model.get_input_embeddings()(ids).detach().requires_grad_(True)
        assert embeds.dtype == stream
        out = model(inputs_embeds=embeds, labels=ids)
        out.loss.backward()
        assert embeds.grad.dtype == stream and torch.isfinite(embeds.grad).all()
        for name, p in amplora.trainable_parameters(model):
            assert p.grad.dtype == torch.float32, name


@pytest.mark.parametrize("init", ["default", "pissa"])
def test_S003_half_model_on_cpu_init(base_fp32, ids, init):
    ids = ids.cpu()  # the failure is the CPU's, whatever DEVICE is
    """PEFT DoRA init on an fp16 model on CPU: "addmm_impl_cpu_ not implemented for 'Half'"; SVD-based inits
    (PiSSA) hit the missing half-precision SVD kernels on CPU."""
    half = copy.deepcopy(base_fp32).half()
    with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
        torch.linalg.svd(half.model.layers[0].mlp.up_proj.weight)  # the wall amplora must go around
    method = "lora" if init == "pissa" else "dora"
    model = amplora.apply(half, method=method, r=4, alpha=8, precision="fp16-mixed", init=init)
    layer = amplora.lora_layers(model)["model.layers.0.mlp.up_proj"]
    if method == "dora":  # the magnitude starts at the fp32 row norm of the fp16 weight
        w = layer.base_layer.weight.float()
        torch.testing.assert_close(layer.lora_magnitude_vector, w.norm(dim=1), rtol=1e-5, atol=1e-6)
    else:  # PiSSA: residual + s·BA reproduces the original weight (fp32 math, one rounding to fp16... then fp32)
        w0 = base_fp32.model.layers[0].mlp.up_proj.weight.half().float()
        rebuilt = layer.base_layer.weight.float() + layer.scaling * layer.lora_B.weight @ layer.lora_A.weight
        assert rel_err(rebuilt, w0) < 1e-3
    out = model(ids, labels=ids)
    out.loss.backward()
    assert torch.isfinite(out.loss)


def test_S004_amp_and_non_amp_regions_mixed(base_fp32, ids):
    """llama-recipes, fp16 AMP with fp32 params: parts of the model ran inside AMP and parts outside, and backward
    met 'c10::Half != float'. Here the user runs the decoder and the head separately, with no autocast at all,
    and the backward still works; every adapter sits on its base layer's device (no silent re-placement)."""
    model = amplora.apply(copy.deepcopy(base_fp32).to(DEVICE), method="lora", r=4, alpha=8, precision="fp16-mixed")
    perturb_adapters(model)
    hidden = model.model(ids).last_hidden_state  # the decoder carries the policy too
    logits = model.lm_head(hidden)  # outside every autocast region: fp32 head on the fp32 residual stream
    loss = torch.nn.functional.cross_entropy(logits.float().flatten(0, 1), ids.flatten())
    scaler = amplora.policy_of(model).grad_scaler(DEVICE.type)
    scaler.scale(loss).backward()
    grads = [p.grad for _, p in amplora.trainable_parameters(model)]
    assert all(g is not None and g.dtype == torch.float32 and torch.isfinite(g).all() for g in grads)
    for layer in amplora.lora_layers(model).values():
        assert layer.lora_A.weight.device == layer.base_layer.weight.device
    with pytest.raises(amplora.PrecisionError, match="CUDA is not available|only 1 CUDA device"):
        amplora.precision.resolve_device("cuda:1")  # an explicit device that is not there is an error
