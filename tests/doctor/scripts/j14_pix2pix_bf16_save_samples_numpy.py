"""pix2pix-style colourisation (grayscale -> RGB) with a tiny U-Net generator and a
PatchGAN discriminator, both cast to bfloat16. After training, a sample grid is
written to disk as a NumPy uint8 array.
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(14)
rng = np.random.default_rng(14)
DTYPE = torch.bfloat16


def make_pairs(n, size=16):
    yy, xx = np.mgrid[0:size, 0:size]
    rgb = np.zeros((n, size, size, 3), dtype=np.uint8)
    for i in range(n):
        for _ in range(3):
            cy, cx, r = rng.uniform(0, size, 2).tolist() + [rng.uniform(2, 6)]
            rgb[i][(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = rng.integers(0, 256, size=3)
    gray = (rgb @ np.array([0.299, 0.587, 0.114])).astype(np.uint8)[..., None]
    return gray, rgb


class UNet(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.d1 = nn.Sequential(nn.Conv2d(1, ch, 4, 2, 1), nn.LeakyReLU(0.2))           # 8
        self.d2 = nn.Sequential(nn.Conv2d(ch, ch * 2, 4, 2, 1), nn.BatchNorm2d(ch * 2), nn.LeakyReLU(0.2))  # 4
        self.u1 = nn.Sequential(nn.ConvTranspose2d(ch * 2, ch, 4, 2, 1), nn.BatchNorm2d(ch), nn.ReLU())      # 8
        self.u2 = nn.ConvTranspose2d(ch * 2, 3, 4, 2, 1)                                 # 16

    def forward(self, x):
        h1 = self.d1(x)
        h2 = self.d2(h1)
        u1 = self.u1(h2)
        return torch.tanh(self.u2(torch.cat([u1, h1], dim=1)))


class PatchD(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(4, ch, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(ch, ch * 2, 4, 2, 1), nn.BatchNorm2d(ch * 2), nn.LeakyReLU(0.2),
            nn.Conv2d(ch * 2, 1, 3, 1, 1),
        )

    def forward(self, gray, rgb):
        return self.net(torch.cat([gray, rgb], dim=1))


def to_tensor(u8):
    return (torch.from_numpy(u8).permute(0, 3, 1, 2).float() / 127.5 - 1).to(DTYPE)


G, D = UNet().to(DTYPE), PatchD().to(DTYPE)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
gray_u8, rgb_u8 = make_pairs(256)
L1_LAMBDA = 100.0

for it in range(40):
    idx = rng.integers(0, 256, 16)
    gray, rgb = to_tensor(gray_u8[idx]), to_tensor(rgb_u8[idx])
    fake = G(gray)

    pred_real, pred_fake = D(gray, rgb), D(gray, fake.detach())
    loss_d = 0.5 * (F.binary_cross_entropy_with_logits(pred_real, torch.ones_like(pred_real))
                    + F.binary_cross_entropy_with_logits(pred_fake, torch.zeros_like(pred_fake)))
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()

    pred_fake = D(gray, fake)
    loss_g = F.binary_cross_entropy_with_logits(pred_fake, torch.ones_like(pred_fake)) + L1_LAMBDA * F.l1_loss(fake, rgb)
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    if it % 10 == 0:
        print(f"it {it} loss_d {loss_d.item():.3f} loss_g {loss_g.item():.3f}")

# ---- save a sample grid: input | output | target
G.eval()
with torch.no_grad():
    gray, rgb = to_tensor(gray_u8[:4]), to_tensor(rgb_u8[:4])
    out = G(gray)
    row = torch.cat([gray.expand(-1, 3, -1, -1), out, rgb], dim=3)  # (4, 3, 16, 48)
    grid = ((row + 1) * 127.5).clamp(0, 255).permute(0, 2, 3, 1).reshape(-1, 48, 3)
    grid = grid.cpu().numpy().astype(np.uint8)
path = os.path.join(tempfile.mkdtemp(), "samples.npy")
np.save(path, grid)
print("saved", path, grid.shape)
