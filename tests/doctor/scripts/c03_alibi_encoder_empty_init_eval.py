"""Evaluate a small ALiBi encoder (MosaicBERT style) from a safetensors checkpoint.

The model skeleton is created with accelerate.init_empty_weights() so no memory is spent on the
random init, then the trained weights are assigned from the checkpoint.
"""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import init_empty_weights
from safetensors.torch import load_file, save_file

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, N_CLASSES = 1000, 64, 4, 2, 3


def get_alibi_slopes(n_heads):
    start = 2 ** (-8.0 / n_heads)
    return [start ** (i + 1) for i in range(n_heads)]


class AlibiSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.Wqkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        slopes = torch.tensor(get_alibi_slopes(heads), device=self.Wqkv.weight.device)
        self.register_buffer("slopes", slopes, persistent=False)

    def forward(self, x, key_padding_mask):
        B, T, C = x.shape
        q, k, v = self.Wqkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.hd)
        pos = torch.arange(T, device=x.device)
        rel = (pos[None, :] - pos[:, None]).abs().neg()                 # symmetric ALiBi for an encoder
        scores = scores + self.slopes[:, None, None] * rel               # (H, T, T)
        scores = scores.masked_fill(~key_padding_mask[:, None, None, :], torch.finfo(scores.dtype).min)
        probs = scores.softmax(-1)
        y = (probs @ v).transpose(1, 2).reshape(B, T, C)
        return self.out(y)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = AlibiSelfAttention(D, HEADS)
        self.ln1 = nn.LayerNorm(D)
        self.ffn = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
        self.ln2 = nn.LayerNorm(D)

    def forward(self, x, mask):
        x = self.ln1(x + self.attn(x, mask))
        return self.ln2(x + self.ffn(x))


class AlibiBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = nn.Embedding(VOCAB, D, padding_idx=0)
        self.emb_ln = nn.LayerNorm(D)
        self.layers = nn.ModuleList([EncoderLayer() for _ in range(LAYERS)])
        self.classifier = nn.Linear(D, N_CLASSES)

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.bool()
        x = self.emb_ln(self.embeddings(input_ids))
        for layer in self.layers:
            x = layer(x, mask)
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return self.classifier(pooled)


def make_eval_set(n=64, T=48):
    ids = torch.randint(1, VOCAB, (n, T))
    lengths = torch.randint(8, T + 1, (n,))
    mask = (torch.arange(T)[None] < lengths[:, None]).long()
    ids = ids * mask
    labels = ids[:, 0] % N_CLASSES
    return ids, mask, labels


with tempfile.TemporaryDirectory() as tmp:
    # stands in for the checkpoint written by the training job
    ckpt = os.path.join(tmp, "model.safetensors")
    save_file(AlibiBert().state_dict(), ckpt)

    with init_empty_weights():
        model = AlibiBert()
    missing, unexpected = model.load_state_dict(load_file(ckpt), assign=True)
    print("missing:", missing, "unexpected:", unexpected)
    model.eval()

    ids, mask, labels = make_eval_set()
    correct, total_loss = 0, 0.0
    with torch.no_grad():
        for i in range(0, len(ids), 16):
            logits = model(ids[i:i + 16], mask[i:i + 16])
            total_loss += F.cross_entropy(logits, labels[i:i + 16], reduction="sum").item()
            correct += (logits.argmax(-1) == labels[i:i + 16]).sum().item()
    print(f"eval loss {total_loss / len(ids):.4f} acc {correct / len(ids):.3f}")
