"""Convolutional autoencoder trained with L1 + an LPIPS-style perceptual loss
(Zhang et al., 2018): unit-normalised features of a frozen network, squared
differences, learned non-negative 1x1 "lin" weights, spatial average.

The frozen perceptual network is run in half precision (.half()) since it needs
no gradients of its own; the autoencoder itself trains in float32.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(10)
rng = np.random.default_rng(10)


def normalize_tensor(in_feat, eps=1e-10):
    norm_factor = torch.sqrt(torch.sum(in_feat ** 2, dim=1, keepdim=True))
    return in_feat / (norm_factor + eps)


def spatial_average(x):
    return x.mean([2, 3], keepdim=True)


class PerceptualLoss(nn.Module):
    def __init__(self, chns=(16, 32, 64)):
        super().__init__()
        self.slices = nn.ModuleList()
        in_c = 3
        for i, c in enumerate(chns):
            layers = [] if i == 0 else [nn.MaxPool2d(2)]
            layers += [nn.Conv2d(in_c, c, 3, padding=1), nn.ReLU(), nn.Conv2d(c, c, 3, padding=1), nn.ReLU()]
            self.slices.append(nn.Sequential(*layers))
            in_c = c
        for m in self.slices.modules():
            if isinstance(m, nn.Conv2d):  # torchvision VGG init
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)
        self.lins = nn.ModuleList([nn.Conv2d(c, 1, 1, bias=False) for c in chns])
        for lin in self.lins:
            nn.init.uniform_(lin.weight, 0.0, 0.1)

    def forward(self, x0, x1):
        """x0, x1: images in [0, 1]."""
        h0, h1 = x0, x1
        val = 0
        for sl, lin in zip(self.slices, self.lins):
            h0, h1 = sl(h0), sl(h1)
            diff = (normalize_tensor(h0) - normalize_tensor(h1)) ** 2
            val = val + spatial_average(lin(diff))
        return val


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 4, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 4, 2, 1), nn.ReLU(),
                                 nn.Conv2d(64, 16, 3, 1, 1))
        self.dec = nn.Sequential(nn.ConvTranspose2d(16, 64, 4, 2, 1), nn.ReLU(),
                                 nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(), nn.Conv2d(32, 3, 3, 1, 1), nn.Tanh())

    def forward(self, x):
        return self.dec(self.enc(x))


def make_scenes(n, size=32):
    yy, xx = np.mgrid[0:size, 0:size]
    out = np.zeros((n, size, size, 3), dtype=np.uint8)
    for i in range(n):
        for _ in range(3):
            cy, cx, r = rng.uniform(4, 28), rng.uniform(4, 28), rng.uniform(3, 8)
            out[i][(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = rng.integers(0, 256, size=3)
    return out


percep = PerceptualLoss().half().eval()
for p in percep.parameters():
    p.requires_grad_(False)
model = AutoEncoder()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
scenes = make_scenes(256)

for it in range(24):
    idx = rng.integers(0, len(scenes), 8)
    x = torch.from_numpy(scenes[idx]).permute(0, 3, 1, 2).float() / 127.5 - 1
    recon = model(x)
    l1 = (recon - x).abs().mean()
    p_loss = percep((recon.half() + 1) / 2, (x.half() + 1) / 2).float().mean()
    loss = l1 + 1.0 * p_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 6 == 0:
        print(f"it {it} l1 {l1.item():.4f} lpips {p_loss.item():.4f}")
print("final loss", loss.item())
