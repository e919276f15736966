"""Causal-LM cross-entropy in the policy's logits dtype (fp32) without materializing logits for the whole batch.

Hidden states come from the decoder (`model.base_model`) under the model's precision policy; the output head
then runs in the policy's logits dtype (Precision.logits) on the answer positions only (prompt and padding positions never reach the head), a chunk of
rows at a time. Each chunk is checkpointed, so backward holds one chunk of logits at a time, never
batch x seq x vocab of them. `LossModel` puts the LM and this loss behind one forward: the trainer calls it in one
process and under torchrun alike (distributed.py wraps it with FSDP2 or DDP).
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from amplora import policy_of, precision_scope
from amplora.train.encoding import IGNORE


def _is_plain_linear(module) -> bool:
    return type(module) is torch.nn.Linear and not module.weight.requires_grad


def logits_dtype(model) -> torch.dtype:
    policy = policy_of(model)
    return policy.logits if policy is not None else torch.float32


def _head_logits(head, model, hidden: torch.Tensor) -> torch.Tensor:
    dtype = logits_dtype(model)
    if _is_plain_linear(head):  # the usual case: a frozen (often tied) head, computed in the logits dtype here
        bias = head.bias.to(dtype) if head.bias is not None else None
        return F.linear(hidden.to(dtype), head.weight.to(dtype), bias)
    with precision_scope(model):  # an adapted or quantized head: let it run under the policy, then widen
        return head(hidden).to(dtype)


def _chunk_loss(hidden: torch.Tensor, targets: torch.Tensor, head, model) -> torch.Tensor:
    return F.cross_entropy(_head_logits(head, model, hidden), targets, reduction="sum")


def answer_hidden_states(model, input_ids, labels, attention_mask=None, position_ids=None):
    """(hidden states at positions whose next token is an answer token, those target tokens)."""
    with precision_scope(model):
        out = model.base_model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               use_cache=False)
    hidden = out.last_hidden_state[:, :-1]
    targets = labels[:, 1:]
    keep = targets != IGNORE
    return hidden[keep], targets[keep]


def lm_loss_sum(model, input_ids, labels, attention_mask=None, position_ids=None, chunk_rows: int = 1024,
                **_unused) -> tuple[torch.Tensor, int]:
    """(sum of token losses over answer tokens, in the logits dtype, number of answer tokens). Divide by the
    step's token count."""
    hidden, targets = answer_hidden_states(model, input_ids, labels, attention_mask, position_ids)
    head = model.get_output_embeddings()
    total = hidden.new_zeros((), dtype=logits_dtype(model))
    for start in range(0, targets.numel(), chunk_rows):
        h, t = hidden[start:start + chunk_rows], targets[start:start + chunk_rows]
        if torch.is_grad_enabled() and h.requires_grad:
            total = total + checkpoint(_chunk_loss, h, t, head, model, use_reentrant=False)
        else:
            total = total + _chunk_loss(h, t, head, model)
    return total, int(targets.numel())


class LossModel(nn.Module):
    """The LM and its loss as one module: forward("loss", **batch) -> (fp32 loss sum, answer tokens);
    forward("generate", **kwargs) -> model.generate(**kwargs). Parameter names gain the prefix `model.`."""

    def __init__(self, model: nn.Module, chunk_rows: int):
        super().__init__()
        self.model, self.chunk_rows = model, chunk_rows

    def forward(self, task: str, **kwargs):
        if task == "generate":
            return self.model.generate(**kwargs)
        loss_sum, n = lm_loss_sum(self.model, chunk_rows=self.chunk_rows, **kwargs)
        return loss_sum, n
