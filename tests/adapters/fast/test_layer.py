"""What a fast layer keeps between calls (amplora.adapters.fast.layer): the path is a per-model choice, nothing is
registered process-wide, and a fused optimizer (which writes parameters in place without bumping their version
counters) never leaves a stale cache behind, with or without `track_optimizer`."""
from __future__ import annotations

import copy

import pytest
import torch
from torch.optim import optimizer as torch_optimizer

import amplora

from ..conftest import perturb_adapters, tiny_llama


def test_importing_amplora_registers_no_global_optimizer_hook():
    amplora.apply(tiny_llama(), r=4, precision="fp32")
    assert not torch_optimizer._global_optimizer_post_hooks and not torch_optimizer._global_optimizer_pre_hooks


def test_the_path_is_chosen_per_model_and_recorded(ids):
    fused = amplora.apply(tiny_llama(), method="dora", r=4, precision="fp32")
    plain = amplora.apply(tiny_llama(), method="dora", r=4, precision="fp32", path="plain")
    assert amplora.adapter_config(fused).path == "fused" and amplora.adapter_config(plain).path == "plain"
    assert all(m.fast is not None for m in amplora.lora_layers(fused).values())
    assert all(m.fast is None for m in amplora.lora_layers(plain).values())
    torch.testing.assert_close(fused(ids).logits, plain(ids).logits, rtol=1e-5, atol=1e-5)
    with pytest.raises(amplora.AmploraError, match="unknown path"):
        amplora.apply(tiny_llama(), r=4, path="fast")


@pytest.mark.parametrize("tracked", [False, True])
def test_fused_adamw_with_generate_between_steps_never_reads_a_stale_cache(ids, tracked):
    """DoRA, AdamW(fused=True) on the CPU, generate() between backward and step and after each step: every output
    equals that of a fresh copy of the model (which has nothing kept)."""
    torch.manual_seed(0)
    model = amplora.apply(tiny_llama(), method="dora", r=4, precision="bf16-true")
    perturb_adapters(model)
    params = [p for _, p in amplora.trainable_parameters(model)]
    opt = torch.optim.AdamW(params, lr=0.05, fused=True)
    if tracked:
        amplora.track_optimizer(opt, model)
    prompt = ids[:1, :6]

    def generate(m):
        return m.generate(prompt, max_new_tokens=4, do_sample=False, output_logits=True, return_dict_in_generate=True,
                          pad_token_id=0)

    def check():
        out, ref = generate(model), generate(copy.deepcopy(model))
        assert torch.equal(out.sequences, ref.sequences)
        assert all(torch.equal(a, b) for a, b in zip(out.logits, ref.logits))
        with torch.no_grad():
            assert torch.equal(model(ids).logits, copy.deepcopy(model)(ids).logits)

    for _ in range(3):
        model(ids, labels=ids).loss.backward()
        versions = [p._version for p in params]
        check()  # between backward and the step
        opt.step()
        assert [p._version for p in params] == versions  # fused: no version bump (why a clock is needed)
        check()  # after the step, gradients still held
        opt.zero_grad(set_to_none=True)
        check()  # and after they are dropped


def test_untracked_steps_with_no_call_between_backward_and_the_next_forward_are_seen(ids):
    """transformers.Trainer's order: forward, backward, fused step, zero_grad, and the next forward is the model's
    next call, with no gradient held at either call. DoRA's kept terms must not outlive the step: the losses and
    the logits after training equal those of a twin whose optimizer is tracked."""
    model = amplora.apply(tiny_llama(), method="dora", r=4, precision="fp32")
    perturb_adapters(model)
    twin = copy.deepcopy(model)
    runs = []
    for m, tracked in ((model, False), (twin, True)):
        opt = torch.optim.AdamW([p for _, p in amplora.trainable_parameters(m)], lr=0.05, fused=True)
        if tracked:
            amplora.track_optimizer(opt, m)
        losses = []
        for _ in range(3):
            loss = m(ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            losses.append(loss.item())
        with torch.no_grad():
            runs.append((losses, m(ids).logits))
    assert runs[0][0] == runs[1][0]
    assert torch.equal(runs[0][1], runs[1][1])


def test_a_tracked_optimizer_lets_the_micro_batches_share_doras_terms(ids, monkeypatch):
    model = amplora.apply(tiny_llama(), method="dora", r=4, precision="fp32")
    calls = []
    original = amplora.LoraLinear.dora_cross_term
    monkeypatch.setattr(amplora.LoraLinear, "dora_cross_term", lambda self, *a: calls.append(1) or original(self, *a))
    opt = torch.optim.AdamW([p for _, p in amplora.trainable_parameters(model)], lr=0.01, fused=True)
    handle = amplora.track_optimizer(opt, model)
    layers = len(amplora.lora_layers(model))
    for _ in range(2):
        for _ in range(3):  # three micro-batches of one step: the terms once
            model(ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad()
    assert len(calls) == 2 * layers
    handle.remove()  # untracked again: each micro-batch after the first, with gradients held, recomputes them
    calls.clear()
    for _ in range(3):
        model(ids, labels=ids).loss.backward()
    assert len(calls) == 3 * layers
