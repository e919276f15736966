import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(5)

LOOKBACK, HORIZON = 128, 16
QUANTILES = torch.tensor([0.1, 0.5, 0.9])
T = 8000
t = np.arange(T)
series = (np.sin(2 * np.pi * t / 48) + 0.4 * np.sin(2 * np.pi * t / 336) + rng.standard_t(4, T) * 0.15).astype(np.float32)
win = np.lib.stride_tricks.sliding_window_view(series, LOOKBACK + HORIZON)[::24]
X = torch.from_numpy(win[:, :LOOKBACK].copy())
Y = torch.from_numpy(win[:, LOOKBACK:].copy())
split = int(0.85 * len(X))


class CausalConv1d(nn.Conv1d):
    def __init__(self, c_in, c_out, k, dilation):
        super().__init__(c_in, c_out, k, dilation=dilation)
        self.left = (k - 1) * dilation

    def forward(self, x):
        return super().forward(F.pad(x, (self.left, 0)))


class TemporalBlock(nn.Module):
    def __init__(self, ch, k, d):
        super().__init__()
        self.conv1 = CausalConv1d(ch, ch, k, d)
        self.conv2 = CausalConv1d(ch, ch, k, d)
        self.norm = nn.GroupNorm(1, ch)

    def forward(self, x):
        return x + self.conv2(F.relu(self.norm(self.conv1(x))))


class TCNQuantile(nn.Module):
    def __init__(self, ch=24, k=3, levels=6):
        super().__init__()
        self.inp = nn.Conv1d(1, ch, 1)
        self.tcn = nn.Sequential(*[TemporalBlock(ch, k, 2 ** i) for i in range(levels)])
        self.head = nn.Linear(ch, HORIZON * len(QUANTILES))

    def forward(self, x):
        loc = x.mean(1, keepdim=True)
        scale = x.std(1, keepdim=True).clamp_min(1e-3)
        h = self.tcn(self.inp(((x - loc) / scale).unsqueeze(1)))[..., -1]
        q = self.head(h).view(-1, HORIZON, len(QUANTILES)).float()
        return q * scale.unsqueeze(-1) + loc.unsqueeze(-1)


def pinball(pred, y, q):
    diff = y.unsqueeze(-1) - pred
    return torch.maximum(q * diff, (q - 1) * diff).mean()


model = TCNQuantile()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

for epoch in range(3):
    perm = torch.randperm(split)
    for i in range(0, split, 128):
        idx = perm[i:i + 128]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = model(X[idx])
        loss = pinball(pred.float(), Y[idx], QUANTILES)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} pinball {loss.item():.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    pred = model(X[split:])
pred = pred.float().sort(-1).values
y = Y[split:]
naive = (X[split:, 48:] - X[split:, :-48]).abs().mean(1, keepdim=True)
mase = ((pred[..., 1] - y).abs() / naive).mean()
smape = (2 * (pred[..., 1] - y).abs() / (pred[..., 1].abs() + y.abs()).clamp_min(1e-6)).mean()
cover = ((y >= pred[..., 0]) & (y <= pred[..., 2])).float().mean()
print(f"test pinball {pinball(pred, y, QUANTILES).item():.4f} MASE {mase.item():.3f} sMAPE {smape.item():.3f} 80% coverage {cover.item():.3f}")
