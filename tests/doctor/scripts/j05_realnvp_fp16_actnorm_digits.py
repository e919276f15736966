"""RealNVP (per-feature ActNorm input layer + affine couplings) on flattened 8x8 "digits"
with pixel intensities 0..16, the classic small density-estimation benchmark.
The flow is kept in float16 (model.half()) to halve memory.
"""
import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(5)
rng = np.random.default_rng(5)
D = 64


def make_digits(n):
    """Strokes drawn inside the central 6x6 area, like sklearn's 8x8 digits (values 0..16)."""
    out = np.zeros((n, 8, 8), dtype=np.uint8)
    for i in range(n):
        for _ in range(rng.integers(2, 4)):
            r0, c0, r1, c1 = rng.integers(1, 7, size=4)
            for t in np.linspace(0, 1, 12):
                r = int(round(r0 + (r1 - r0) * t))
                c = int(round(c0 + (c1 - c0) * t))
                out[i, r, c] = min(16, out[i, r, c] + rng.integers(6, 12))
    return out.reshape(n, D)


class ActNorm1d(nn.Module):
    """Per-feature affine normalisation with data-dependent init (Kingma & Dhariwal, 2018)."""

    def __init__(self, d):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(d))
        self.logs = nn.Parameter(torch.zeros(d))
        self.initialized = False

    def forward(self, x):
        if not self.initialized:
            with torch.no_grad():
                self.bias.data.copy_(-x.mean(0))
                self.logs.data.copy_(-torch.log(x.std(0) + 1e-6))
            self.initialized = True
        z = (x + self.bias) * torch.exp(self.logs)
        return z, self.logs.sum().expand(x.shape[0])


class Coupling(nn.Module):
    def __init__(self, mask, hidden=128):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(
            nn.Linear(D, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, 2 * D),
        )
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        xm = x * self.mask
        s, t = self.net(xm).chunk(2, dim=1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        z = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return z, s.sum(1)


class RealNVP(nn.Module):
    def __init__(self, n_layers=6):
        super().__init__()
        layers = [ActNorm1d(D)]  # data-dependent input normalisation
        checker = (torch.arange(D) % 2).float()
        for i in range(n_layers):
            layers.append(Coupling(checker if i % 2 == 0 else 1 - checker))
        self.layers = nn.ModuleList(layers)

    def log_prob(self, x):
        logdet = torch.zeros(x.shape[0], dtype=x.dtype)
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        log_pz = -0.5 * (x ** 2).sum(1) - 0.5 * D * math.log(2 * math.pi)
        return log_pz + logdet


data = torch.from_numpy(make_digits(1024)).float() / 16.0
flow = RealNVP().half()
opt = torch.optim.Adam(flow.parameters(), lr=1e-3)

for epoch in range(4):
    perm = torch.randperm(len(data))
    for i in range(0, len(data), 128):
        x = data[perm[i:i + 128]].half()
        loss = -flow.log_prob(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} nll {loss.item():.3f}")

with torch.no_grad():
    test_ll = flow.log_prob(data[:256].half()).float().mean()
print("mean test log-likelihood", test_ll.item())
