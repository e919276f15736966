"""RealNVP on two-moons data (fp32 training). Before and after training, the
analytic log-determinant is verified against slogdet of the autograd Jacobian on a
float64 copy of the flow.
"""
import copy
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(17)
rng = np.random.default_rng(17)


def two_moons(n, noise=0.05):
    t = rng.uniform(0, math.pi, n)
    upper = np.stack([np.cos(t), np.sin(t)], 1)
    lower = np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1)
    pts = np.where(rng.random(n)[:, None] < 0.5, upper, lower) + noise * rng.standard_normal((n, 2))
    return pts  # float64, like most NumPy code


class Coupling(nn.Module):
    def __init__(self, mask, hidden=64):
        super().__init__()
        self.register_buffer("mask", mask)
        self.s = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 2), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, x):
        xm = x * self.mask
        s = self.s(xm) * (1 - self.mask)
        t = self.t(xm) * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return y, s.sum(1)


class RealNVP(nn.Module):
    def __init__(self, n=6):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])] * (n // 2)
        self.layers = nn.ModuleList([Coupling(m) for m in masks])

    def forward(self, x):
        logdet = torch.zeros(x.shape[0], dtype=x.dtype)
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return x, logdet

    def log_prob(self, x):
        z, logdet = self(x)
        return -0.5 * (z ** 2).sum(1) - math.log(2 * math.pi) + logdet


def check_logdet(flow, n=8):
    ref = copy.deepcopy(flow).double()
    x = torch.randn(n, 2, dtype=torch.float64)
    _, logdet = ref(x)
    for i in range(n):
        jac = torch.autograd.functional.jacobian(lambda v: ref(v[None])[0][0], x[i])
        sign, logabs = torch.linalg.slogdet(jac)
        assert sign.item() > 0
        assert abs(logabs.item() - logdet[i].item()) < 1e-8, (logabs.item(), logdet[i].item())
    print("log-det check passed (float64)")


flow = RealNVP()
check_logdet(flow)
data = torch.from_numpy(two_moons(2048)).float()
opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
for it in range(300):
    batch = data[torch.randint(0, len(data), (256,))]
    loss = -flow.log_prob(batch).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 100 == 0:
        print(f"it {it} nll {loss.item():.4f}")
check_logdet(flow)
print("final nll", -flow.log_prob(data).mean().item())
