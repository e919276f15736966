"""Clean reference: EDM (Karras et al. 2022) training and Heun sampling of a tiny U-Net.
fp32 master weights, CPU autocast fp16 for the network, while sigma, the preconditioning
coefficients and the loss weighting stay in fp32.  Sampler = EDM Algorithm 1 (Heun with an
Euler last step, so the denoiser is never evaluated at sigma = 0).
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SIGMA_MIN, SIGMA_MAX, SIGMA_DATA, RHO = 0.002, 80.0, 0.5, 7.0
P_MEAN, P_STD = -1.2, 1.2
IMG = 8


class PosEmb(nn.Module):
    def __init__(self, n=32):
        super().__init__()
        self.n = n

    def forward(self, x):
        f = (1 / 10000) ** (torch.arange(self.n // 2, dtype=torch.float32) / (self.n // 2))
        a = x.float()[:, None] * f[None]
        return torch.cat([a.cos(), a.sin()], 1)


class UNetBlock(nn.Module):
    def __init__(self, cin, cout, emb):
        super().__init__()
        self.norm0 = nn.GroupNorm(8, cin)
        self.conv0 = nn.Conv2d(cin, cout, 3, padding=1)
        self.affine = nn.Linear(emb, cout)
        self.norm1 = nn.GroupNorm(8, cout)
        self.conv1 = nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, e):
        h = self.conv0(F.silu(self.norm0(x)))
        h = F.silu(self.norm1(h + self.affine(e)[:, :, None, None]))
        return (self.conv1(h) + self.skip(x)) / math.sqrt(2)


class SongUNet(nn.Module):
    def __init__(self, ch=32, emb=64):
        super().__init__()
        self.map_noise = PosEmb(32)
        self.map = nn.Sequential(nn.Linear(32, emb), nn.SiLU(), nn.Linear(emb, emb))
        self.conv_in = nn.Conv2d(3, ch, 3, padding=1)
        self.enc = UNetBlock(ch, ch, emb)
        self.down = nn.Conv2d(ch, ch * 2, 3, stride=2, padding=1)
        self.mid = UNetBlock(ch * 2, ch * 2, emb)
        self.up = nn.Upsample(scale_factor=2)
        self.dec = UNetBlock(ch * 3, ch, emb)
        self.conv_out = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x, noise_labels):
        e = self.map(self.map_noise(noise_labels))
        h0 = self.enc(self.conv_in(x), e)
        h = self.mid(self.down(h0), e)
        h = self.dec(torch.cat([self.up(h), h0], 1), e)
        return self.conv_out(F.silu(h))


class EDMPrecond(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, sigma):
        x = x.float()
        sigma = sigma.float().reshape(-1, 1, 1, 1)
        c_skip = SIGMA_DATA ** 2 / (sigma ** 2 + SIGMA_DATA ** 2)
        c_out = sigma * SIGMA_DATA / (sigma ** 2 + SIGMA_DATA ** 2).sqrt()
        c_in = 1 / (SIGMA_DATA ** 2 + sigma ** 2).sqrt()
        c_noise = sigma.log() / 4
        with torch.autocast("cpu", dtype=torch.float16):
            F_x = self.model(c_in * x, c_noise.flatten())
        return c_skip * x + c_out * F_x.float()


def edm_loss(net, images):
    rnd_normal = torch.randn(images.shape[0], 1, 1, 1, dtype=torch.float32)
    sigma = (rnd_normal * P_STD + P_MEAN).exp()
    weight = (sigma ** 2 + SIGMA_DATA ** 2) / (sigma * SIGMA_DATA) ** 2
    n = torch.randn_like(images) * sigma
    D_yn = net(images + n, sigma)
    return (weight * (D_yn - images) ** 2).mean()


def make_images(n):
    rng = np.random.default_rng(0)
    base = rng.uniform(-1, 1, size=(n, 3, 1, 1)).astype(np.float32)
    grad = np.linspace(-0.5, 0.5, IMG, dtype=np.float32)[None, None, :, None]
    return torch.from_numpy(np.clip(base + grad, -1, 1) * np.ones((1, 1, 1, IMG), np.float32))


data = make_images(256)
net = EDMPrecond(SongUNet())
opt = torch.optim.Adam(net.parameters(), lr=2e-4, betas=(0.9, 0.99), eps=1e-8)
for step in range(24):
    x = data[torch.randint(0, len(data), (32,))]
    loss = edm_loss(net, x)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    for p in net.parameters():
        torch.nan_to_num(p.grad, nan=0, posinf=1e5, neginf=-1e5, out=p.grad)
    opt.step()
    if step % 6 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")


@torch.no_grad()
def edm_sampler(net, latents, num_steps=12):
    step_indices = torch.arange(num_steps, dtype=torch.float64)
    t_steps = (SIGMA_MAX ** (1 / RHO) + step_indices / (num_steps - 1) * (SIGMA_MIN ** (1 / RHO) - SIGMA_MAX ** (1 / RHO))) ** RHO
    t_steps = torch.cat([t_steps, torch.zeros_like(t_steps[:1])])
    x_next = latents.to(torch.float64) * t_steps[0]
    for i, (t_cur, t_next) in enumerate(zip(t_steps[:-1], t_steps[1:])):
        x_cur = x_next
        denoised = net(x_cur, t_cur.repeat(x_cur.shape[0])).to(torch.float64)
        d_cur = (x_cur - denoised) / t_cur
        x_next = x_cur + (t_next - t_cur) * d_cur
        if i < num_steps - 1:  # 2nd order correction, skipped on the final step to sigma = 0
            denoised = net(x_next, t_next.repeat(x_cur.shape[0])).to(torch.float64)
            d_prime = (x_next - denoised) / t_next
            x_next = x_cur + (t_next - t_cur) * (0.5 * d_cur + 0.5 * d_prime)
    return x_next


samples = edm_sampler(net.eval(), torch.randn(4, 3, IMG, IMG))
images = (samples * 127.5 + 128).clip(0, 255).to(torch.uint8).permute(0, 2, 3, 1).numpy()
print("images", images.shape, images.dtype, int(images.min()), int(images.max()))
print("done")
