"""DCGAN on synthetic 16x16 sprites with bf16 autocast on the CPU (weights and
optimizer state stay fp32). Logits-based BCE, sample grid saved with NumPy.
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(15)
rng = np.random.default_rng(15)
NZ = 32


def make_sprites(n):
    yy, xx = np.mgrid[0:16, 0:16]
    imgs = np.zeros((n, 16, 16, 3), dtype=np.uint8)
    for i in range(n):
        cy, cx = rng.uniform(4, 12, size=2)
        r = rng.uniform(2.5, 5)
        imgs[i][(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = rng.integers(120, 256, size=3)
    return imgs


netG = nn.Sequential(
    nn.ConvTranspose2d(NZ, 64, 4, 1, 0, bias=False), nn.BatchNorm2d(64), nn.ReLU(True),
    nn.ConvTranspose2d(64, 32, 4, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(True),
    nn.ConvTranspose2d(32, 3, 4, 2, 1, bias=False), nn.Tanh(),
)
netD = nn.Sequential(
    nn.Conv2d(3, 32, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
    nn.Conv2d(32, 64, 4, 2, 1, bias=False), nn.BatchNorm2d(64), nn.LeakyReLU(0.2, True),
    nn.Conv2d(64, 1, 4, 1, 0, bias=False), nn.Flatten(),
)
for m in list(netG.modules()) + list(netD.modules()):
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(m.weight, 0.0, 0.02)

optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
data = make_sprites(256)
fixed_noise = torch.randn(16, NZ, 1, 1)

for it in range(60):
    idx = rng.integers(0, len(data), 32)
    real = torch.from_numpy(data[idx]).permute(0, 3, 1, 2).float() / 127.5 - 1
    noise = torch.randn(32, NZ, 1, 1)

    with torch.autocast("cpu", dtype=torch.bfloat16):
        fake = netG(noise)
        logit_real = netD(real)
        logit_fake = netD(fake.detach())
    lossD = (F.binary_cross_entropy_with_logits(logit_real.float(), torch.ones_like(logit_real, dtype=torch.float32))
             + F.binary_cross_entropy_with_logits(logit_fake.float(), torch.zeros_like(logit_fake, dtype=torch.float32)))
    optD.zero_grad(set_to_none=True)
    lossD.backward()
    optD.step()

    with torch.autocast("cpu", dtype=torch.bfloat16):
        logit_gen = netD(fake)
    lossG = F.binary_cross_entropy_with_logits(logit_gen.float(), torch.ones_like(logit_gen, dtype=torch.float32))
    optG.zero_grad(set_to_none=True)
    lossG.backward()
    optG.step()
    if it % 15 == 0:
        print(f"it {it} lossD {lossD.item():.3f} lossG {lossG.item():.3f}")

netG.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    samples = netG(fixed_noise)
grid = ((samples.float() + 1) * 127.5).clamp(0, 255).round().to(torch.uint8)
grid = grid.view(4, 4, 3, 16, 16).permute(0, 3, 1, 4, 2).reshape(64, 64, 3).numpy()
path = os.path.join(tempfile.mkdtemp(), "dcgan_samples.npy")
np.save(path, grid)
print("saved", path, grid.shape, grid.dtype)
