"""Small Glow (ActNorm -> invertible 1x1 conv -> affine coupling) on 8x8 images,
cast to bfloat16 for speed. Trained by maximum likelihood in bits/dim.
"""
import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(4)
rng = np.random.default_rng(4)
DTYPE = torch.bfloat16


def squeeze2x2(x):
    b, c, h, w = x.shape
    x = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4)
    return x.reshape(b, c * 4, h // 2, w // 2)


class ActNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, c, 1, 1))
        self.logs = nn.Parameter(torch.zeros(1, c, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    def forward(self, x):
        if self.initialized.item() == 0:
            with torch.no_grad():
                mean = x.mean(dim=(0, 2, 3), keepdim=True)
                std = x.std(dim=(0, 2, 3), keepdim=True)
                self.loc.data.copy_(-mean)
                self.logs.data.copy_(torch.log(1.0 / (std + 1e-6)))
                self.initialized.fill_(1)
        h, w = x.shape[2:]
        y = (x + self.loc) * torch.exp(self.logs)
        return y, h * w * self.logs.sum()


class InvConv2d(nn.Module):
    def __init__(self, c):
        super().__init__()
        q, _ = torch.linalg.qr(torch.randn(c, c))
        self.weight = nn.Parameter(q)

    def forward(self, x):
        h, w = x.shape[2:]
        y = nn.functional.conv2d(x, self.weight.unsqueeze(2).unsqueeze(3))
        logdet = h * w * torch.slogdet(self.weight)[1]
        return y, logdet


class AffineCoupling(nn.Module):
    def __init__(self, c, hidden=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(c // 2, hidden, 3, padding=1), nn.ReLU(),
            nn.Conv2d(hidden, hidden, 1), nn.ReLU(),
            nn.Conv2d(hidden, c, 3, padding=1),
        )
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        xa, xb = x.chunk(2, dim=1)
        log_s, t = self.net(xa).chunk(2, dim=1)
        s = torch.sigmoid(log_s + 2.0)
        yb = (xb + t) * s
        return torch.cat([xa, yb], dim=1), torch.log(s).flatten(1).sum(1)


class FlowStep(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.actnorm = ActNorm(c)
        self.invconv = InvConv2d(c)
        self.coupling = AffineCoupling(c)

    def forward(self, x):
        x, ld1 = self.actnorm(x)
        x, ld2 = self.invconv(x)
        x, ld3 = self.coupling(x)
        return x, ld1 + ld2 + ld3


class Glow(nn.Module):
    def __init__(self, c=12, n_steps=4):
        super().__init__()
        self.steps = nn.ModuleList([FlowStep(c) for _ in range(n_steps)])

    def forward(self, x):
        x = squeeze2x2(x)
        logdet = torch.zeros(x.shape[0], dtype=x.dtype)
        for step in self.steps:
            x, ld = step(x)
            logdet = logdet + ld
        log_pz = (-0.5 * (x ** 2 + math.log(2 * math.pi))).flatten(1).sum(1)
        return log_pz + logdet


def make_images(n):
    yy, xx = np.mgrid[0:8, 0:8]
    out = np.empty((n, 8, 8, 3), dtype=np.uint8)
    for i in range(n):
        g = rng.uniform(0, 1) * xx / 7 + rng.uniform(0, 1) * yy / 7
        for c in range(3):
            out[i, :, :, c] = np.clip(255 * (0.3 * g + rng.uniform(0, 0.7)), 0, 255)
    return out


model = Glow().to(DTYPE)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
images = make_images(512)
n_bins = 256.0
D = 3 * 8 * 8

for it in range(40):
    idx = rng.integers(0, len(images), size=64)
    x = torch.from_numpy(images[idx]).permute(0, 3, 1, 2).float()
    x = (x + torch.rand_like(x)) / n_bins - 0.5      # uniform dequantisation
    x = x.to(DTYPE)
    log_px = model(x) - D * math.log(n_bins)
    loss = -log_px.mean()
    bpd = loss / (D * math.log(2))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 10 == 0:
        print(f"iter {it:3d} bits/dim {bpd.item():.3f}")
print("done")
