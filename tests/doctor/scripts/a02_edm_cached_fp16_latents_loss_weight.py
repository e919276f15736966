"""EDM (Karras et al. 2022) training of a small denoiser on cached latents.

Latents are pre-encoded once and cached to disk as fp16 safetensors (half the size),
then the denoiser (fp32 master weights) is trained under CPU autocast fp16 with the
EDM preconditioning c_skip / c_out / c_in / c_noise and the EDM loss weighting.
"""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file, load_file

torch.manual_seed(0)

SIGMA_MIN, SIGMA_MAX, SIGMA_DATA = 0.002, 80.0, 0.5


# ---------------------------------------------------------------- cache latents
def fake_latents(n):
    # smooth low-frequency 4x8x8 "latents", roughly unit-ish scale like SD latents * 0.18215
    base = torch.randn(n, 4, 2, 2)
    return F.interpolate(base, size=(8, 8), mode="bilinear", align_corners=False) * 0.5


tmp = tempfile.mkdtemp(prefix="edm_cache_")
cache_path = os.path.join(tmp, "latents.safetensors")
save_file({"latents": fake_latents(512).half().contiguous()}, cache_path)
latents = load_file(cache_path)["latents"]
print("cached latents", tuple(latents.shape), latents.dtype)


# ---------------------------------------------------------------- model
class FourierEmbedding(nn.Module):
    def __init__(self, dim, scale=16):
        super().__init__()
        self.register_buffer("freqs", torch.randn(dim // 2) * scale)

    def forward(self, x):
        x = x.flatten()[:, None] * (2 * math.pi * self.freqs[None].to(x.dtype))
        return torch.cat([x.cos(), x.sin()], dim=1)


class Block(nn.Module):
    def __init__(self, ch, emb):
        super().__init__()
        self.norm = nn.GroupNorm(8, ch)
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.emb = nn.Linear(emb, ch * 2)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, e):
        scale, shift = self.emb(e)[:, :, None, None].chunk(2, dim=1)
        h = self.norm(x) * (1 + scale) + shift
        h = self.conv2(F.silu(self.conv1(F.silu(h))))
        return x + h


class Denoiser(nn.Module):
    def __init__(self, cin=4, ch=32, emb=64):
        super().__init__()
        self.fourier = FourierEmbedding(emb)
        self.map = nn.Sequential(nn.Linear(emb, emb), nn.SiLU(), nn.Linear(emb, emb))
        self.inp = nn.Conv2d(cin, ch, 3, padding=1)
        self.blocks = nn.ModuleList([Block(ch, emb) for _ in range(3)])
        self.out = nn.Conv2d(ch, cin, 3, padding=1)

    def forward(self, x, c_noise):
        e = self.map(self.fourier(c_noise))
        h = self.inp(x)
        for b in self.blocks:
            h = b(h, e)
        return self.out(F.silu(h))


def precond(net, x, sigma):
    c_skip = SIGMA_DATA ** 2 / (sigma ** 2 + SIGMA_DATA ** 2)
    c_out = sigma * SIGMA_DATA / (sigma ** 2 + SIGMA_DATA ** 2).sqrt()
    c_in = 1 / (SIGMA_DATA ** 2 + sigma ** 2).sqrt()
    c_noise = sigma.log() / 4
    F_x = net(c_in * x, c_noise.flatten())
    return c_skip * x + c_out * F_x


def edm_loss(net, y):
    # log-uniform sigma over the full sampling range [sigma_min, sigma_max]
    rnd_uniform = torch.rand_like(y[:, :1, :1, :1])
    sigma = SIGMA_MIN * (SIGMA_MAX / SIGMA_MIN) ** rnd_uniform
    weight = (sigma ** 2 + SIGMA_DATA ** 2) / (sigma * SIGMA_DATA) ** 2
    n = torch.randn_like(y) * sigma
    D_yn = precond(net, y + n, sigma)
    return (weight * (D_yn - y) ** 2).mean()


net = Denoiser()
opt = torch.optim.Adam(net.parameters(), lr=2e-4)
bs = 32
for step in range(20):
    idx = torch.randint(0, latents.shape[0], (bs,))
    y = latents[idx]
    with torch.autocast("cpu", dtype=torch.float16):
        loss = edm_loss(net, y)
    opt.zero_grad(set_to_none=True)
    loss.float().backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    opt.step()
    if step % 5 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")


# ---------------------------------------------------------------- quick Heun sample
@torch.no_grad()
def sample(net, n=4, steps=8, rho=7.0):
    i = torch.arange(steps, dtype=torch.float64)
    t = (SIGMA_MAX ** (1 / rho) + i / (steps - 1) * (SIGMA_MIN ** (1 / rho) - SIGMA_MAX ** (1 / rho))) ** rho
    t = torch.cat([t, torch.zeros(1, dtype=t.dtype)]).float()
    x = torch.randn(n, 4, 8, 8) * t[0]
    for k in range(steps):
        s, s_next = t[k].expand(n, 1, 1, 1), t[k + 1].expand(n, 1, 1, 1)
        d = (x - precond(net, x, s)) / s
        x_next = x + (s_next - s) * d
        if k < steps - 1:
            d2 = (x_next - precond(net, x_next, s_next)) / s_next
            x_next = x + (s_next - s) * 0.5 * (d + d2)
        x = x_next
    return x


z = sample(net)
print("sample std", z.std().item())
print("done")
