import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(7)

LAGS = 32
T = 5000
t = np.arange(T)
base = np.sin(2 * np.pi * t / 40) + 0.3 * np.cos(2 * np.pi * t / 9)
series = (base + rng.normal(0, 0.1, T)).astype(np.float32)
test = series.copy()
spikes = rng.choice(np.arange(4100, 4990), 12, replace=False)
test[spikes] += rng.choice([-1, 1], 12) * rng.uniform(0.7, 0.9, 12).astype(np.float32)


def lagged(x):
    w = np.lib.stride_tricks.sliding_window_view(x, LAGS + 1)
    return torch.from_numpy(w[:, :LAGS].copy()), torch.from_numpy(w[:, LAGS].copy())


class GaussianHead(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(LAGS, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.loc = nn.Linear(hidden, 1)
        self.log_scale = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.loc(h).squeeze(-1), self.log_scale(h).squeeze(-1).clamp(-6, 3).exp()


def density(y, mu, sigma):
    z = (y - mu) / sigma
    return torch.exp(-0.5 * z * z) / (sigma * math.sqrt(2 * math.pi))


model = GaussianHead()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
X, Y = lagged(series[:4000])
for epoch in range(8):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), 128):
        idx = perm[i:i + 128]
        mu, sigma = model(X[idx])
        nll = (torch.log(sigma) + 0.5 * ((Y[idx] - mu) / sigma) ** 2).mean() + 0.5 * math.log(2 * math.pi)
        opt.zero_grad()
        nll.backward()
        opt.step()
    print(f"epoch {epoch} gaussian nll {nll.item():.4f}")

scorer = model.half().eval()
with torch.no_grad():
    Xv, Yv = lagged(series[4000:])
    mu, sigma = scorer(Xv.half())
    val_score = -torch.log(density(Yv.half(), mu, sigma))
    threshold = torch.quantile(val_score.float(), 0.99)

    Xt, Yt = lagged(test[4000:])
    mu, sigma = scorer(Xt.half())
    score = -torch.log(density(Yt.half(), mu, sigma)).float()

flag = score > threshold
true = torch.zeros_like(flag)
true[torch.as_tensor(spikes - 4000 - LAGS)] = True
print(f"threshold {threshold.item():.3f} mean score {score.mean().item():.3f} max {score.max().item():.3f}")
print(f"precision {(flag & true).sum().item() / max(flag.sum().item(), 1):.2f} recall {(flag & true).sum().item() / true.sum().item():.2f}")
