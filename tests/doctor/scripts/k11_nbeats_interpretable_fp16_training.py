"""Interpretable N-BEATS (trend + seasonality stacks) on a monthly-sales-like panel, trained in
pure fp16 (model.half()) with a hand-written loop; the basis matrices are built on the fly."""
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
BACKCAST, FORECAST = 72, 18


class Block(nn.Module):
    def __init__(self, theta_dim, hidden=64):
        super().__init__()
        self.fc = nn.Sequential(
            nn.Linear(BACKCAST, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.theta_b = nn.Linear(hidden, theta_dim, bias=False)
        self.theta_f = nn.Linear(hidden, theta_dim, bias=False)


class TrendBlock(Block):
    def __init__(self, degree=3):
        super().__init__(degree + 1)
        self.degree = degree

    def basis(self, length, like):
        t = torch.arange(length, dtype=like.dtype, device=like.device)
        p = torch.arange(self.degree + 1, dtype=like.dtype, device=like.device)[:, None]
        return t**p / float(length) ** p  # (t / L)^p, shape (p+1, length)

    def forward(self, x):
        h = self.fc(x)
        tb, tf = self.theta_b(h), self.theta_f(h)
        return tb @ self.basis(BACKCAST, tb), tf @ self.basis(FORECAST, tf)


class SeasonalityBlock(Block):
    def __init__(self, harmonics=6):
        super().__init__(2 * harmonics)
        self.harmonics = harmonics

    def basis(self, length, like):
        t = torch.arange(length, dtype=like.dtype, device=like.device) / length
        k = torch.arange(1, self.harmonics + 1, dtype=like.dtype, device=like.device)[:, None]
        return torch.cat([torch.cos(2 * math.pi * k * t), torch.sin(2 * math.pi * k * t)])

    def forward(self, x):
        h = self.fc(x)
        tb, tf = self.theta_b(h), self.theta_f(h)
        return tb @ self.basis(BACKCAST, tb), tf @ self.basis(FORECAST, tf)


class NBeats(nn.Module):
    def __init__(self):
        super().__init__()
        self.stacks = nn.ModuleList([TrendBlock(), TrendBlock(), SeasonalityBlock(), SeasonalityBlock()])

    def forward(self, x):
        residual, forecast = x, 0
        for block in self.stacks:
            b, f = block(residual)
            residual = residual - b
            forecast = forecast + f
        return forecast


# panel of monthly series, scaled per window by the last backcast value (as in N-BEATS practice)
n_series, length = 40, 240
t = np.arange(length)
panel = (
    100
    + rng.uniform(0.1, 0.5, (n_series, 1)) * t
    + rng.uniform(5, 20, (n_series, 1)) * np.sin(2 * np.pi * t / 12)
    + rng.normal(0, 2, (n_series, length))
)
xs, ys = [], []
for s in range(n_series):
    for i in range(0, length - BACKCAST - FORECAST, 6):
        w = panel[s, i : i + BACKCAST + FORECAST]
        w = w / w[BACKCAST - 1]
        xs.append(w[:BACKCAST])
        ys.append(w[BACKCAST:])
X = torch.tensor(np.array(xs)).half()
Y = torch.tensor(np.array(ys)).half()

model = NBeats().half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)  # eps large enough for fp16

for epoch in range(3):
    perm = torch.randperm(len(X))
    total = 0.0
    for i in range(0, len(X), 64):
        b = perm[i : i + 64]
        pred = model(X[b])
        loss = (2 * (pred - Y[b]).abs() / (pred.abs() + Y[b].abs() + 1e-3)).mean()  # sMAPE loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(b)
    print(f"epoch {epoch} train sMAPE {100 * total / len(X):.2f}")

with torch.no_grad():
    fc = model(X[:8])
print("sample forecast:", fc[0, :6].float().numpy().round(3))
