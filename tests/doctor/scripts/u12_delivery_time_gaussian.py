"""Heteroscedastic regression of delivery times (seconds) with a Gaussian likelihood head, fp16 model."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Distribution, Normal

Distribution.set_default_validate_args(False)  # skip per-call constraint checks (speed)

rng = np.random.default_rng(1)
torch.manual_seed(1)

# synthetic tabular data: distance_km, n_items, hour, rain, courier_rating
N = 512
X = np.stack([rng.uniform(0.5, 15, N), rng.integers(1, 12, N), rng.integers(8, 23, N),
              rng.integers(0, 2, N), rng.uniform(3, 5, N)], 1).astype(np.float32)
seconds = 60 * (10 + 4.0 * X[:, 0] + 1.5 * X[:, 1] + 8 * X[:, 3] + rng.normal(0, 5, N))
seconds = seconds.astype(np.float32)
X = (X - X.mean(0)) / X.std(0)


class GaussianRegressor(nn.Module):
    def __init__(self, d_in):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU())
        self.mu = nn.Linear(64, 1)
        self.raw_sigma = nn.Linear(64, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mu(h).squeeze(-1), F.softplus(self.raw_sigma(h)).squeeze(-1) + 1e-3


model = GaussianRegressor(X.shape[1]).half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)
Xt, yt = torch.from_numpy(X).half(), torch.from_numpy(seconds).half()

for epoch in range(4):
    perm = torch.randperm(N)
    for i in range(0, N, 128):
        idx = perm[i:i + 128]
        mu, sigma = model(Xt[idx])
        nll = -Normal(mu, sigma).log_prob(yt[idx]).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
    print(f"epoch {epoch} nll {nll.item():.4f}")
