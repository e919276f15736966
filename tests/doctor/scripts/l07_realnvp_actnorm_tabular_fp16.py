"""RealNVP-style normalizing flow (ActNorm + affine coupling + permutations) for density
estimation on tabular sensor data, trained in fp16. ActNorm uses Glow's data-dependent
initialisation on the first batch."""
import math
import time

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
D = 6


def load_sensor_table(n):
    t = rng.uniform(0, 1, n)
    temp = 20 + 5 * np.sin(2 * np.pi * t) + rng.normal(0, 0.5, n)
    hum = 0.5 + 0.2 * np.cos(2 * np.pi * t) + rng.normal(0, 0.03, n)
    press = 1.013 + rng.normal(0, 0.004, n)
    co2 = 0.4 + 0.1 * rng.gamma(2.0, 0.5, n)
    gain = 1.0 + rng.normal(0, 1e-5, n)  # calibration gain, essentially constant
    noise = rng.normal(0, 1, n)
    x = np.stack([temp, hum, press, co2, gain, noise], 1)
    x[:, 0] = (x[:, 0] - 20) / 5  # only temperature gets rescaled
    return x.astype(np.float32)


class ActNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(dim))
        self.log_scale = nn.Parameter(torch.zeros(dim))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    def forward(self, x):
        if self.initialized.item() == 0:
            with torch.no_grad():
                mean, std = x.mean(0), x.std(0)
                self.loc.data.copy_(-mean)
                self.log_scale.data.copy_(torch.log(1.0 / (std + 1e-6)))
                self.initialized.fill_(1)
        z = (x + self.loc) * torch.exp(self.log_scale)
        return z, self.log_scale.sum().expand(x.shape[0])


class AffineCoupling(nn.Module):
    def __init__(self, dim, mask, hidden=64):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 2 * dim))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        s, t = self.net(x * self.mask).chunk(2, dim=-1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        z = x * self.mask + (1 - self.mask) * (x * torch.exp(s) + t)
        return z, s.sum(-1)


class Flow(nn.Module):
    def __init__(self, dim, n_blocks=4):
        super().__init__()
        layers = []
        for i in range(n_blocks):
            mask = (torch.arange(dim) % 2 == i % 2).float()
            layers += [ActNorm(dim), AffineCoupling(dim, mask)]
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        logdet = torch.zeros(x.shape[0], dtype=x.dtype)
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return x, logdet


def nll(flow, x):
    z, logdet = flow(x)
    log_pz = -0.5 * (z ** 2 + math.log(2 * math.pi)).sum(-1)  # standard normal base
    return -(log_pz + logdet).mean()


def main():
    t0 = time.time()
    data = torch.from_numpy(load_sensor_table(4096)).half()
    train, test = data[:3584], data[3584:]
    flow = Flow(D).half()
    opt = torch.optim.Adam(flow.parameters(), lr=1e-3, eps=1e-4)
    for epoch in range(3):
        perm = torch.randperm(len(train))
        for i in range(0, len(train), 256):
            loss = nll(flow, train[perm[i:i + 256]])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(flow.parameters(), 5.0)
            opt.step()
        with torch.no_grad():
            test_nll = nll(flow, test)
        print(f"epoch {epoch} train nll {loss.item():.3f} test nll {test_nll.item():.3f}")
    print(f"done ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
