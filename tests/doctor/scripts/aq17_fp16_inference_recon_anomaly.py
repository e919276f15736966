import math
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(11)

WIN, C = 64, 3
T = 6000
t = np.arange(T)
clean = np.stack([np.sin(2 * np.pi * t / 32), np.cos(2 * np.pi * t / 50) * 3 + 10, np.full(T, 4.0)], -1)
clean = (clean + rng.normal(0, 0.05, clean.shape)).astype(np.float32)
clean[:, 2] = 4.0
test = clean.copy()
test[5200:5230, 0] += 1.5
test[5600:5610, 1] -= 4.0


def windows(x):
    return torch.from_numpy(np.lib.stride_tricks.sliding_window_view(x, WIN, axis=0)[::4].copy())


class RevIN(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x, mode):
        if mode == "norm":
            xf = x.float()
            self.mean = xf.mean(-1, keepdim=True)
            self.std = torch.sqrt(xf.var(-1, keepdim=True, unbiased=False) + self.eps)
            return ((xf - self.mean) / self.std).to(x.dtype)
        return (x.float() * self.std + self.mean)


class MaskedReconstructor(nn.Module):
    def __init__(self, d=48, heads=4):
        super().__init__()
        self.revin = RevIN()
        self.inp = nn.Linear(C, d)
        self.pos = nn.Parameter(torch.randn(WIN, d) * 0.02)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.out = nn.Linear(d, C)
        self.heads = heads

    def forward(self, x):
        b, c, w = x.shape
        z = self.revin(x, "norm").transpose(1, 2)
        h = self.inp(z) + self.pos
        q, k, v = self.qkv(h).view(b, w, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        self_mask = torch.eye(w, dtype=torch.bool)
        scores = scores.masked_fill(self_mask, torch.finfo(scores.dtype).min)
        attn = F.softmax(scores.float(), dim=-1).to(v.dtype)
        h = h + self.proj((attn @ v).transpose(1, 2).reshape(b, w, -1))
        h = h + self.mlp(h)
        return self.revin(self.out(h).transpose(1, 2), "denorm")


train_w = windows(clean[:4500])
model = MaskedReconstructor()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(4):
    perm = torch.randperm(len(train_w))
    for i in range(0, len(perm), 64):
        xb = train_w[perm[i:i + 64]]
        loss = F.mse_loss(model(xb), xb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} recon mse {loss.item():.5f}")

path = os.path.join(tempfile.mkdtemp(), "detector_fp16.pt")
torch.save({k: v.half() for k, v in model.state_dict().items()}, path)
detector = MaskedReconstructor().half()
detector.load_state_dict(torch.load(path))
detector.eval()

with torch.no_grad():
    val_w, test_w = windows(clean[4500:]), windows(test[4500:])
    val_err = (detector(val_w.half()) - val_w).pow(2).mean(dim=(1, 2))
    test_err = (detector(test_w.half()) - test_w).pow(2).mean(dim=(1, 2))
threshold = torch.quantile(val_err.float(), 0.99)
flagged = ((test_err > threshold).nonzero().squeeze(-1) * 4 + 4500).tolist()
print(f"val err mean {val_err.mean().item():.5f} threshold {threshold.item():.5f} test max {test_err.max().item():.4f}")
print(f"flagged {len(flagged)} windows, first {flagged[:5]}")
