"""Latent diffusion on a tiny VAE.

Stage 1 fits a small KL-VAE (recon + beta * KL).  Stage 2 freezes it in fp16, encodes the
dataset, estimates the latent scaling factor (1 / std of the latents, as in Stable Diffusion's
0.18215) with running moments, trains an epsilon-prediction denoiser on scaled latents and
finally samples, un-scales, decodes and converts to uint8.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


# ------------------------------------------------------------------ data
def make_images(n, size=16):
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, size), torch.linspace(-1, 1, size), indexing="ij")
    freq = torch.rand(n, 1, 1) * 3 + 1
    phase = torch.rand(n, 1, 1) * math.pi
    g = torch.sin(freq * xx + phase) * torch.cos(freq * yy)
    col = torch.rand(n, 3, 1, 1) * 2 - 1
    return (g[:, None] * col).clamp(-1, 1)


dataset = make_images(1024)


# ------------------------------------------------------------------ stage 1: VAE
class TinyVAE(nn.Module):
    def __init__(self, ch=32, zc=4):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, ch, 3, padding=1), nn.SiLU(),
            nn.Conv2d(ch, ch, 4, stride=2, padding=1), nn.SiLU(),
            nn.Conv2d(ch, 2 * zc, 3, padding=1),
        )
        self.decoder = nn.Sequential(
            nn.Conv2d(zc, ch, 3, padding=1), nn.SiLU(),
            nn.ConvTranspose2d(ch, ch, 4, stride=2, padding=1), nn.SiLU(),
            nn.Conv2d(ch, 3, 3, padding=1),
        )

    def encode(self, x):
        mean, logvar = self.encoder(x).chunk(2, dim=1)
        logvar = logvar.clamp(-30.0, 20.0)
        return mean, logvar

    def decode(self, z):
        return self.decoder(z)


vae = TinyVAE()
vopt = torch.optim.Adam(vae.parameters(), lr=1e-3)
for step in range(30):
    x = dataset[torch.randint(0, len(dataset), (32,))]
    mean, logvar = vae.encode(x)
    z = mean + torch.randn_like(mean) * (0.5 * logvar).exp()
    rec = vae.decode(z)
    kl = 0.5 * (mean.pow(2) + logvar.exp() - 1.0 - logvar).sum(dim=(1, 2, 3)).mean()
    loss = F.mse_loss(rec, x) + 1e-6 * kl
    vopt.zero_grad()
    loss.backward()
    vopt.step()
    if step % 10 == 0:
        print(f"vae step {step} rec {F.mse_loss(rec, x).item():.4f} kl {kl.item():.1f}")

vae = vae.half().eval().requires_grad_(False)

# ------------------------------------------------------------------ latent statistics
with torch.no_grad():
    lat_sum, lat_sq_sum, count = 0.0, 0.0, 0
    for i in range(0, len(dataset), 32):
        mean, logvar = vae.encode(dataset[i:i + 32].half())
        lat_sum = lat_sum + mean.sum()
        lat_sq_sum = lat_sq_sum + mean.pow(2).sum()
        count += mean.numel()
    lat_mean = lat_sum / count
    lat_std = (lat_sq_sum / count - lat_mean ** 2).sqrt()
    scaling_factor = (1.0 / lat_std).float()
print("latent std", lat_std.item(), "scaling factor", scaling_factor.item())

with torch.no_grad():
    latents = torch.cat([vae.encode(dataset[i:i + 64].half())[0] for i in range(0, len(dataset), 64)]).float()
    latents = latents * scaling_factor

# ------------------------------------------------------------------ stage 2: latent denoiser
T = 1000
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1 - betas
ac = torch.cumprod(alphas, 0)


def temb(t, dim=32):
    f = torch.exp(-math.log(10000) * torch.arange(dim // 2) / (dim // 2))
    a = t.float()[:, None] * f
    return torch.cat([a.sin(), a.cos()], 1)


class LatentDenoiser(nn.Module):
    def __init__(self, zc=4, ch=64):
        super().__init__()
        self.t = nn.Sequential(nn.Linear(32, ch), nn.SiLU(), nn.Linear(ch, ch))
        self.c1 = nn.Conv2d(zc, ch, 3, padding=1)
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1)
        self.c3 = nn.Conv2d(ch, zc, 3, padding=1)

    def forward(self, z, t):
        h = F.silu(self.c1(z) + self.t(temb(t))[:, :, None, None])
        h = F.silu(self.c2(h))
        return self.c3(h)


unet = LatentDenoiser()
opt = torch.optim.AdamW(unet.parameters(), lr=3e-4)
for step in range(40):
    z0 = latents[torch.randint(0, len(latents), (32,))]
    t = torch.randint(0, T, (32,))
    eps = torch.randn_like(z0)
    a = ac[t].view(-1, 1, 1, 1)
    zt = a.sqrt() * z0 + (1 - a).sqrt() * eps
    loss = F.mse_loss(unet(zt, t), eps)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"ldm step {step} loss {loss.item():.4f}")


# ------------------------------------------------------------------ sample + decode
@torch.no_grad()
def ddpm_sample(n=4, stride=50):
    z = torch.randn(n, 4, 8, 8)
    ts = list(range(T - 1, -1, -stride))
    for i, t in enumerate(ts):
        a_t = ac[t]
        a_prev = ac[ts[i + 1]] if i + 1 < len(ts) else torch.tensor(1.0)
        eps = unet(z, torch.full((n,), t))
        z0 = (z - (1 - a_t).sqrt() * eps) / a_t.sqrt()
        z = a_prev.sqrt() * z0 + (1 - a_prev).sqrt() * eps
    return z


z = ddpm_sample()
img = vae.decode((z / scaling_factor).half()).float()
img_u8 = ((img.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)
print("decoded", tuple(img_u8.shape), "mean pixel", img_u8.float().mean().item())
print("done")
