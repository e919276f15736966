"""Tiny hand-written GPT fine-tuned in fp16 on left-padded batches.

The causal and padding masks are additive masks built with the usual -1e9 constant.
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, CTX = 256, 64, 4, 2, 32
PAD = 0


class Attention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, attn_bias):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        q = q.view(B, T, self.h, -1).transpose(1, 2)
        k = k.view(B, T, self.h, -1).transpose(1, 2)
        v = v.view(B, T, self.h, -1).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        att = att + attn_bias
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, h)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, attn_bias):
        x = x + self.attn(self.ln1(x), attn_bias)
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, D)
        self.wpe = nn.Embedding(CTX, D)
        self.blocks = nn.ModuleList([Block(D, HEADS) for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def build_bias(self, attention_mask, dtype):
        T = attention_mask.size(1)
        causal = torch.tril(torch.ones(T, T, dtype=dtype))
        causal_bias = (1.0 - causal) * -1e9                       # (T, T)
        pad = attention_mask[:, None, None, :].to(dtype)
        pad_bias = (1.0 - pad) * -1e9                             # (B, 1, 1, T)
        return causal_bias[None, None] + pad_bias

    def forward(self, idx, attention_mask):
        B, T = idx.shape
        # left padding: positions start at the first real token
        pos = (attention_mask.cumsum(-1) - 1).clamp(min=0)
        x = self.wte(idx) + self.wpe(pos)
        bias = self.build_bias(attention_mask, x.dtype)
        for blk in self.blocks:
            x = blk(x, bias)
        return self.lm_head(self.ln_f(x))


def make_batch(bs=8, T=CTX):
    ids = torch.full((bs, T), PAD, dtype=torch.long)
    mask = torch.zeros(bs, T, dtype=torch.long)
    for i in range(bs):
        n = int(torch.randint(T // 2, T + 1, (1,)))
        start = int(torch.randint(1, VOCAB - 40, (1,)))
        seq = (torch.arange(n) * 3 + start) % (VOCAB - 1) + 1
        ids[i, T - n:] = seq
        mask[i, T - n:] = 1
    labels = ids.clone()
    labels[mask == 0] = -100
    return ids, mask, labels


model = TinyGPT().half()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-4)

for step in range(30):
    ids, mask, labels = make_batch()
    logits = model(ids, mask)
    loss = F.cross_entropy(logits[:, :-1].float().reshape(-1, VOCAB), labels[:, 1:].reshape(-1), ignore_index=-100)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")

print("done, final loss", loss.item())
