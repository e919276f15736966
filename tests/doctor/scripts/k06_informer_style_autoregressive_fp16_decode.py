"""Informer-style encoder/decoder transformer forecaster (hand-written attention, distilling conv),
trained in fp32 with teacher forcing, then rolled out autoregressively in fp16 for fast inference."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
CONTEXT, LABEL_LEN, HORIZON, D = 48, 12, 12, 32


class Attention(nn.Module):
    def __init__(self, d, heads=4):
        super().__init__()
        self.h, self.dk = heads, d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, mem=None, causal=False):
        mem = x if mem is None else mem
        B, L, _ = x.shape
        S = mem.shape[1]
        q = self.q(x).view(B, L, self.h, self.dk).transpose(1, 2)
        k = self.k(mem).view(B, S, self.h, self.dk).transpose(1, 2)
        v = self.v(mem).view(B, S, self.h, self.dk).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.dk)
        if causal:
            mask = torch.triu(torch.ones(L, S, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(mask, -1e9)
        attn = scores.softmax(-1)
        return self.o((attn @ v).transpose(1, 2).reshape(B, L, -1))


class DistilConv(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.norm = nn.BatchNorm1d(d)

    def forward(self, x):
        y = F.elu(self.norm(self.conv(x.transpose(1, 2))))
        return F.max_pool1d(y, 3, stride=2, padding=1).transpose(1, 2)


class EncoderLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = Attention(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x):
        x = self.n1(x + self.attn(x))
        return self.n2(x + self.ff(x))


class DecoderLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.self_attn, self.cross_attn = Attention(d), Attention(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.n1, self.n2, self.n3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x, mem):
        x = self.n1(x + self.self_attn(x, causal=True))
        x = self.n2(x + self.cross_attn(x, mem))
        return self.n3(x + self.ff(x))


class InformerLite(nn.Module):
    def __init__(self, d=D):
        super().__init__()
        self.enc_embed = nn.Linear(1, d)
        self.dec_embed = nn.Linear(1, d)
        self.pos = nn.Parameter(torch.randn(1, CONTEXT + HORIZON, d) * 0.02)
        self.encoder = nn.ModuleList([EncoderLayer(d), EncoderLayer(d)])
        self.distil = DistilConv(d)
        self.decoder = nn.ModuleList([DecoderLayer(d)])
        self.out = nn.Linear(d, 1)

    def encode(self, src):
        h = self.enc_embed(src) + self.pos[:, : src.shape[1]]
        h = self.encoder[0](h)
        h = self.distil(h)
        return self.encoder[1](h)

    def decode(self, dec_in, mem):
        h = self.dec_embed(dec_in) + self.pos[:, : dec_in.shape[1]]
        for layer in self.decoder:
            h = layer(h, mem)
        return self.out(h)


def series(n):
    t = np.arange(n)
    return (np.sin(2 * np.pi * t / 24) + 0.4 * np.sin(2 * np.pi * t / 7) + 0.1 * rng.standard_normal(n)).astype(
        np.float32
    )


s = series(3000)
idx = np.arange(0, 2800, 5)
src = torch.from_numpy(np.stack([s[i : i + CONTEXT] for i in idx]))[..., None]
tgt = torch.from_numpy(np.stack([s[i + CONTEXT - LABEL_LEN : i + CONTEXT + HORIZON] for i in idx]))[..., None]

model = InformerLite()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(2):
    perm = torch.randperm(len(src))
    for i in range(0, len(src), 64):
        b = perm[i : i + 64]
        dec_in = tgt[b, :-1]
        pred = model.decode(dec_in, model.encode(src[b]))
        loss = F.mse_loss(pred[:, LABEL_LEN - 1 :], tgt[b, LABEL_LEN:])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} teacher-forced mse {loss.item():.4f}")


@torch.no_grad()
def rollout(model, src, start_tokens, steps):
    mem = model.encode(src)
    dec = start_tokens
    for _ in range(steps):
        nxt = model.decode(dec, mem)[:, -1:]
        dec = torch.cat([dec, nxt], dim=1)
    return dec[:, -steps:]


model = model.half().eval()
test_src = src[-32:].half()
fc = rollout(model, test_src, tgt[-32:, :LABEL_LEN].half(), HORIZON)
err = (fc.float() - tgt[-32:, LABEL_LEN:]).abs().mean().item()
print(f"fp16 autoregressive MAE {err:.4f}")
