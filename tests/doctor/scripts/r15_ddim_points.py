import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(15)
T = 1000
CACHE = tempfile.mkdtemp(prefix="points_")


def two_moons(n):
    a = rng.uniform(0, np.pi, n // 2)
    b = rng.uniform(0, np.pi, n - n // 2)
    upper = np.stack([np.cos(a), np.sin(a)], 1)
    lower = np.stack([1 - np.cos(b), 0.5 - np.sin(b)], 1)
    pts = np.concatenate([upper, lower]) + rng.normal(0, 0.05, (n, 2))
    return (pts - [0.5, 0.25]) / 0.8


np.save(os.path.join(CACHE, "moons.npy"), two_moons(20000).astype(np.float16))
data = torch.from_numpy(np.load(os.path.join(CACHE, "moons.npy")))

betas = torch.linspace(1e-4, 0.02, T, dtype=data.dtype)
alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)


def timestep_embedding(t, dim=32):
    freqs = torch.exp(-np.log(1000.0) * torch.arange(dim // 2) / (dim // 2))
    ang = t.float()[:, None] * freqs[None]
    return torch.cat([ang.sin(), ang.cos()], dim=-1)


class Denoiser(nn.Module):
    """Predicts the clean point x0 from (x_t, t)."""

    def __init__(self, hidden=128):
        super().__init__()
        self.t_proj = nn.Linear(32, hidden)
        self.inp = nn.Linear(2, hidden)
        self.net = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden),
                                 nn.SiLU(), nn.Linear(hidden, 2))

    def forward(self, x, t):
        return self.net(self.inp(x.float()) + self.t_proj(timestep_embedding(t)))


model = Denoiser()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(1500):
    x0 = data[torch.randint(0, len(data), (256,))]
    t = torch.randint(0, T, (256,))
    ab = alphas_cumprod[t][:, None]
    noise = torch.randn_like(x0)
    x_t = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
    loss = F.mse_loss(model(x_t, t), x0.float())
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 500 == 0:
        print(f"step {step} loss {loss.item():.4f}")


@torch.no_grad()
def ddim_sample(n, steps=50, eta=0.0):
    ts = torch.linspace(T - 1, 0, steps).long()
    x = torch.randn(n, 2)
    for i, t in enumerate(ts):
        ab_t = alphas_cumprod[t]
        ab_prev = alphas_cumprod[ts[i + 1]] if i + 1 < steps else torch.tensor(1.0)
        x0_hat = model(x, t.repeat(n)).clamp(-3, 3)
        eps = (x - ab_t.sqrt() * x0_hat) / (1 - ab_t).sqrt()
        x = ab_prev.sqrt() * x0_hat + (1 - ab_prev).sqrt() * eps
    return x


samples = ddim_sample(2000)
ref = data[:2000].float()
d = torch.cdist(samples, ref)
chamfer = d.min(1).values.mean() + d.min(0).values.mean()
print(f"samples mean {samples.mean(0).tolist()} std {samples.std(0).tolist()}")
print(f"chamfer distance to data: {chamfer.item():.4f}")
