"""GPT-style model with a hand-rolled KV cache for greedy sampling, run in bf16 for speed."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, CTX = 400, 96, 4, 3, 128


class KVCache:
    """Pre-allocated key/value storage, grown one position at a time during decoding."""

    def __init__(self, batch, heads, max_len, head_dim):
        self.k = torch.zeros(batch, heads, max_len, head_dim)
        self.v = torch.zeros(batch, heads, max_len, head_dim)
        self.len = 0

    def append(self, k, v):
        T = k.size(2)
        self.k[:, :, self.len:self.len + T] = k
        self.v[:, :, self.len:self.len + T] = v
        self.len += T
        return self.k[:, :, :self.len], self.v[:, :, :self.len]


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.h, self.hd = HEADS, D // HEADS
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)
        self.register_buffer("tril", torch.tril(torch.ones(CTX, CTX, dtype=torch.bool)), persistent=False)

    def forward(self, x, cache=None):
        B, T, _ = x.shape
        q, k, v = self.c_attn(x).split(D, dim=2)
        q = q.view(B, T, self.h, self.hd).transpose(1, 2)
        k = k.view(B, T, self.h, self.hd).transpose(1, 2)
        v = v.view(B, T, self.h, self.hd).transpose(1, 2)
        past = 0
        if cache is not None:
            past = cache.len
            k, v = cache.append(k, v)
        S = k.size(2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.hd))
        causal = self.tril[past:past + T, :S]
        att = att.masked_fill(~causal, torch.finfo(att.dtype).min)
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, D)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = CausalSelfAttention()
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(approximate="tanh"), nn.Linear(4 * D, D))

    def forward(self, x, cache=None):
        x = x + self.attn(self.ln_1(x), cache)
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, D)
        self.wpe = nn.Embedding(CTX, D)
        self.h = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx, caches=None, start=0):
        pos = torch.arange(start, start + idx.size(1), device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for i, block in enumerate(self.h):
            x = block(x, None if caches is None else caches[i])
        return self.lm_head(self.ln_f(x))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        caches = [KVCache(idx.size(0), HEADS, CTX, D // HEADS) for _ in self.h]
        logits = self(idx, caches)
        for _ in range(max_new_tokens):
            nxt = logits[:, -1, :].argmax(-1, keepdim=True)
            idx = torch.cat([idx, nxt], dim=1)
            logits = self(nxt, caches, start=idx.size(1) - 1)
        return idx


model = GPT().to(dtype=torch.bfloat16)
model.eval()
prompts = torch.randint(0, VOCAB, (4, 10))
out = model.generate(prompts, max_new_tokens=50)
print("generated shape", tuple(out.shape))
print(out[0, 10:].tolist())
