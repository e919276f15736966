"""Contrastive Predictive Coding (CPC / wav2vec-1.0 style) self-supervised pre-training on
raw waveforms: strided CNN encoder -> GRU-free causal conv context network -> k-step
bilinear predictions scored against in-batch negatives with an InfoNCE loss.
fp16 autocast + GradScaler on CPU."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SR = 16000
K_STEPS = 4


def synth(bs, n=SR // 2):
    t = torch.arange(n) / SR
    out = []
    for _ in range(bs):
        w = torch.zeros(n)
        pos = 0
        while pos < n:
            L = int(torch.randint(800, 3200, ()))
            f0 = float(torch.empty(()).uniform_(90, 300))
            seg = t[: min(L, n - pos)]
            w[pos:pos + len(seg)] = sum(torch.sin(2 * math.pi * h * f0 * seg) / h for h in range(1, 5))
            pos += L
        out.append(0.25 * w + 0.01 * torch.randn(n))
    return torch.stack(out).unsqueeze(1)


class Encoder(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        cfg = [(10, 5), (8, 4), (4, 2), (4, 2), (4, 2)]  # stride 160 -> 100 Hz frames
        layers, cin = [], 1
        for k, s in cfg:
            layers += [nn.Conv1d(cin, d, k, s, padding=(k - s) // 2), nn.GroupNorm(1, d), nn.ReLU()]
            cin = d
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)  # (B, d, T)


class CausalContext(nn.Module):
    def __init__(self, d=128, layers=3, k=3):
        super().__init__()
        self.k = k
        self.convs = nn.ModuleList([nn.Conv1d(d, d, k) for _ in range(layers)])
        self.norms = nn.ModuleList([nn.GroupNorm(1, d) for _ in range(layers)])

    def forward(self, z):
        c = z
        for conv, norm in zip(self.convs, self.norms):
            c = c + F.relu(norm(conv(F.pad(c, (self.k - 1, 0)))))
        return c


class CPC(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.encoder = Encoder(d)
        self.context = CausalContext(d)
        self.predictors = nn.ModuleList([nn.Linear(d, d, bias=False) for _ in range(K_STEPS)])

    def forward(self, wav):
        z = self.encoder(wav)
        c = self.context(z)
        return z.transpose(1, 2), c.transpose(1, 2)  # (B, T, d)


def info_nce(z, c, predictors, n_neg=32):
    B, T, d = z.shape
    total = 0.0
    for k, W in enumerate(predictors, start=1):
        pred = W(c[:, :-k]).reshape(-1, d)  # predictions for t+k
        pos = z[:, k:].reshape(-1, d)
        neg_idx = torch.randint(0, pos.shape[0], (pos.shape[0], n_neg))
        cands = torch.cat([pos.unsqueeze(1), pos[neg_idx]], dim=1)  # (N, 1+n_neg, d)
        scores = torch.einsum("nd,nkd->nk", pred, cands)
        probs = torch.exp(scores) / torch.exp(scores).sum(dim=-1, keepdim=True)
        total = total - torch.log(probs[:, 0]).mean()
    return total / len(predictors)


model = CPC()
opt = torch.optim.Adam(model.parameters(), lr=2e-4)
scaler = torch.amp.GradScaler("cpu")

for step in range(6):
    wav = synth(4)
    with torch.autocast("cpu", dtype=torch.float16):
        z, c = model(wav)
        loss = info_nce(z, c, model.predictors)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(f"step {step} infonce {loss.item():.4f} scale {scaler.get_scale():.0f}")
