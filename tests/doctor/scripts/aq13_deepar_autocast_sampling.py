import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LAGS, HORIZON, N_PATHS = 48, 24, 100


def make_series(n, length):
    t = torch.arange(length, dtype=torch.float32)
    level = 5 + 2 * torch.rand(n, 1)
    x = level + torch.sin(2 * math.pi * t / 24 + torch.rand(n, 1) * 6.28) + 0.2 * torch.randn(n, length)
    return x


class ARGaussian(nn.Module):
    def __init__(self, hidden=96):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LAGS + 2, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU())
        self.mu = nn.Linear(hidden, 1)
        self.sigma = nn.Linear(hidden, 1)

    def forward(self, lags, hour):
        feats = torch.cat([lags, torch.sin(2 * math.pi * hour / 24), torch.cos(2 * math.pi * hour / 24)], -1)
        h = self.net(feats)
        return self.mu(h).squeeze(-1), F.softplus(self.sigma(h)).squeeze(-1) + 1e-3


def training_pairs(x):
    w = x.unfold(1, LAGS + 1, 1)
    hours = (torch.arange(w.shape[1]) + LAGS).float().expand(w.shape[0], -1) % 24
    return w[..., :LAGS].reshape(-1, LAGS), w[..., LAGS].reshape(-1), hours.reshape(-1, 1)


model = ARGaussian()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
series = make_series(32, 400)
X, Y, HR = training_pairs(series)
scale = X.mean(1, keepdim=True)

for epoch in range(4):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), 512):
        idx = perm[i:i + 512]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            mu, sigma = model(X[idx] / scale[idx], HR[idx])
        s = scale[idx].squeeze(-1)
        nll = -torch.distributions.Normal(mu.float() * s, sigma.float() * s).log_prob(Y[idx]).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
    print(f"epoch {epoch} nll {nll.item():.4f}")


@torch.no_grad()
def sample_paths(history, start_hour):
    ctx = history[-LAGS:].expand(N_PATHS, LAGS).clone()
    s = ctx.mean(1, keepdim=True)
    z_paths = torch.empty(N_PATHS, HORIZON)
    for t in range(HORIZON):
        hour = torch.full((N_PATHS, 1), float((start_hour + t) % 24))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            mu, sigma = model(ctx / s, hour)
            z = mu + sigma * torch.randn_like(mu)
        z_paths.index_copy_(1, torch.tensor([t]), z.unsqueeze(1))
        ctx = torch.cat([ctx[:, 1:], z.unsqueeze(1) * s], dim=1)
    return z_paths * s


model.eval()
test = make_series(1, 400 + HORIZON)[0]
paths = sample_paths(test[:400], 400 % 24)
truth = test[400:]
sorted_paths = paths.sort(0).values
crps = (paths - truth).abs().mean(0) - 0.5 * (paths[:, None] - paths[None]).abs().mean((0, 1))
print(f"CRPS {crps.mean().item():.4f}  p10-p90 width {(sorted_paths[89] - sorted_paths[9]).mean().item():.3f}")
