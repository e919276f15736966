"""Batched greedy generation and the held-out evaluation built on it.

Generation goes through the very model object being trained, outside any autocast region of ours: amplora's
policy at the model boundary decides the dtypes (the S001 situation, made safe by construction).
"""
from __future__ import annotations

import contextlib
import time

import torch

from amplora.train.encoding import prompt_ids
from amplora.train.metric import score


@contextlib.contextmanager
def eval_mode(model):
    was_training = model.training
    model.eval()
    try:
        yield
    finally:
        model.train(was_training)


@torch.no_grad()
def generate(model, tokenizer, prompts: list[list[dict]], max_new_tokens: int = 40, batch_size: int = 32,
             max_length: int = 1024, device=None, runner=None) -> list[str]:
    """Greedy answers to chat prompts (lists of messages), decoded without special tokens. `runner` stands in for
    model.generate in a distributed run (the wrapped root's forward); its ranks then step together (synced_gpus:
    a rank whose answers are done keeps stepping until all are, so FSDP's gathers stay matched)."""
    from transformers import GenerationConfig

    device = device or next(model.parameters()).device
    encoded = [prompt_ids(tokenizer, p, max_length) for p in prompts]
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    config = GenerationConfig(max_new_tokens=max_new_tokens, do_sample=False, num_beams=1, use_cache=True,
                              pad_token_id=pad_id, eos_token_id=tokenizer.eos_token_id)
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))  # similar lengths share a batch
    answers: list[str] = [""] * len(encoded)
    with eval_mode(model):
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            width = max(len(encoded[i]) for i in idx)
            ids = torch.tensor([[pad_id] * (width - len(encoded[i])) + encoded[i] for i in idx], device=device)
            mask = torch.tensor([[0] * (width - len(encoded[i])) + [1] * len(encoded[i]) for i in idx],
                                device=device)
            if runner is None:
                out = model.generate(input_ids=ids, attention_mask=mask, generation_config=config)
            else:
                out = runner(input_ids=ids, attention_mask=mask, generation_config=config, synced_gpus=True)
            for row, i in enumerate(idx):
                answers[i] = tokenizer.decode(out[row, width:], skip_special_tokens=True).strip()
    return answers


def evaluate(model, tokenizer, examples, max_new_tokens: int, batch_size: int, max_length: int,
             generate_fn=None) -> dict:
    """Score greedy answers on held-out examples: the metric dict plus predictions and seconds taken.
    generate_fn(prompts, max_new_tokens, batch_size, max_length) replaces plain generation (the trainer's
    distributed Loop.generate)."""
    start = time.perf_counter()
    prompts = [e.prompt for e in examples]
    predictions = generate_fn(prompts, max_new_tokens, batch_size, max_length) if generate_fn else \
        generate(model, tokenizer, prompts, max_new_tokens, batch_size, max_length)
    result = score(predictions, [e.answer for e in examples])
    result["predictions"] = predictions
    result["seconds"] = round(time.perf_counter() - start, 2)
    return result
