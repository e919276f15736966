import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, MAX_T, PAD = 256, 64, 4, 2, 48, 0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-8):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x * rms * self.weight


def rotary(x, base=10000.0):
    T, hd = x.shape[-2], x.shape[-1]
    inv = base ** (-torch.arange(0, hd, 2, dtype=torch.float32) / hd)
    ang = torch.arange(T, dtype=torch.float32)[:, None] * inv[None]
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm, self.mlp_norm = RMSNorm(D), RMSNorm(D)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(D, D, bias=False) for _ in range(4))
        self.gate = nn.Linear(D, 3 * D, bias=False)
        self.up = nn.Linear(D, 3 * D, bias=False)
        self.down = nn.Linear(3 * D, D, bias=False)

    def forward(self, x, attn_bias):
        B, T, _ = x.shape
        h = self.attn_norm(x)
        q, k, v = (w(h).view(B, T, HEADS, -1).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        q, k = rotary(q), rotary(k)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_bias)
        x = x + self.wo(y.transpose(1, 2).reshape(B, T, D))
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.layers = nn.ModuleList(DecoderLayer() for _ in range(LAYERS))
        self.final_norm = RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids, attention_mask):
        T = ids.size(1)
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
        allowed = causal[None, None] & attention_mask[:, None, None, :].bool()
        allowed = allowed | torch.eye(T, dtype=torch.bool)
        x = self.embed(ids)
        bias = torch.zeros(allowed.shape, dtype=x.dtype).masked_fill(~allowed, torch.finfo(x.dtype).min)
        for layer in self.layers:
            x = layer(x, bias)
        return self.lm_head(self.final_norm(x))


def make_sequence(g):
    n = int(torch.randint(12, MAX_T, (1,), generator=g))
    a = int(torch.randint(1, VOCAB, (1,), generator=g))
    s = int(torch.randint(1, 4, (1,), generator=g))
    return [(a + s * i) % (VOCAB - 1) + 1 for i in range(n)]


def left_pad(seqs):
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), PAD)
    mask = torch.zeros(len(seqs), T, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, T - len(s):] = torch.tensor(s)
        mask[i, T - len(s):] = 1
    return ids, mask


model = LM()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
g = torch.Generator().manual_seed(0)
for step in range(60):
    ids, mask = left_pad([make_sequence(g) for _ in range(16)])
    logits = model(ids, mask)
    labels = ids[:, 1:].masked_fill(mask[:, 1:] == 0, -100)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), labels.reshape(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"train loss (fp32) {loss.item():.4f}")

model = model.half().eval()
nll, count = 0.0, 0
with torch.no_grad():
    for _ in range(8):
        ids, mask = left_pad([make_sequence(g) for _ in range(16)])
        logits = model(ids, mask).float()
        labels = ids[:, 1:].masked_fill(mask[:, 1:] == 0, -100)
        nll += F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), labels.reshape(-1), ignore_index=-100, reduction="sum").item()
        count += int((labels != -100).sum())
print(f"eval (fp16) loss {nll / count:.4f} ppl {math.exp(nll / count):.3f}")
