"""DCGAN on synthetic 16x16 "sprites", whole models cast to bfloat16 to save memory.

The discriminator ends in a Sigmoid and the binary cross-entropy is written out
by hand (one helper for real and fake targets), as in the original paper.
"""
import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)

DTYPE = torch.bfloat16
NZ, NGF, NDF, NC = 32, 32, 32, 3
BATCH, STEPS = 32, 200


def make_sprites(n):
    """Bright discs on a dark background, uint8 HWC like images read from disk."""
    yy, xx = np.mgrid[0:16, 0:16]
    imgs = np.zeros((n, 16, 16, 3), dtype=np.uint8)
    for i in range(n):
        cy, cx = rng.uniform(4, 12, size=2)
        r = rng.uniform(2.5, 5)
        color = rng.integers(120, 256, size=3)
        mask = (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
        imgs[i][mask] = color
    return imgs


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(NZ, NGF * 2, 4, 1, 0, bias=False),  # 4x4
            nn.BatchNorm2d(NGF * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 2, NGF, 4, 2, 1, bias=False),  # 8x8
            nn.BatchNorm2d(NGF),
            nn.ReLU(True),
            nn.ConvTranspose2d(NGF, NC, 4, 2, 1, bias=False),  # 16x16
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(NC, NDF, 4, 2, 1, bias=False),  # 8x8
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF, NDF * 2, 4, 2, 1, bias=False),  # 4x4
            nn.BatchNorm2d(NDF * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.main(x).view(-1)


def bce(p, target):
    """Binary cross-entropy on probabilities: -[t log p + (1 - t) log(1 - p)]."""
    return -(target * torch.log(p) + (1.0 - target) * torch.log(1.0 - p)).mean()


def weights_init(m):
    name = m.__class__.__name__
    if "Conv" in name:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm" in name:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


netG, netD = Generator(), Discriminator()
netG.apply(weights_init)
netD.apply(weights_init)
netG.to(DTYPE)
netD.to(DTYPE)

optD = torch.optim.Adam(netD.parameters(), lr=4e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))

data = make_sprites(BATCH * 8)
fixed_z = torch.randn(16, NZ, 1, 1, dtype=DTYPE)

for step in range(STEPS):
    idx = rng.integers(0, len(data), size=BATCH)
    real = torch.from_numpy(data[idx]).permute(0, 3, 1, 2).float().div(127.5).sub(1.0).to(DTYPE)
    z = torch.randn(BATCH, NZ, 1, 1, dtype=DTYPE)
    fake = netG(z)

    # --- discriminator: maximise log D(x) + log(1 - D(G(z)))
    optD.zero_grad(set_to_none=True)
    d_real = netD(real)
    d_fake = netD(fake.detach())
    ones = torch.ones_like(d_real)
    zeros = torch.zeros_like(d_fake)
    lossD = bce(d_real, ones) + bce(d_fake, zeros)
    lossD.backward()
    optD.step()

    # --- generator: non-saturating loss, maximise log D(G(z))
    optG.zero_grad(set_to_none=True)
    lossG = bce(netD(fake), torch.ones_like(d_fake))
    lossG.backward()
    optG.step()

    if step % 10 == 0 or step == STEPS - 1:
        print(f"step {step:3d}  lossD {lossD.item():.4f}  lossG {lossG.item():.4f}  "
              f"D(x) {d_real.float().mean().item():.3f}  D(G(z)) {d_fake.float().mean().item():.3f}")

with torch.no_grad():
    samples = netG(fixed_z).float()
print("sample range", samples.min().item(), samples.max().item())
print("done")
