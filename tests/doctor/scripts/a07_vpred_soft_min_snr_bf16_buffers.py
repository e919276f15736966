"""v-prediction diffusion with soft-min-SNR loss weighting (gamma = 5), written as a
GaussianDiffusion wrapper that owns the schedule as registered buffers.  The whole
wrapper is moved to bf16 to train the U-Net in pure bf16.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def sinusoidal(t, dim):
    half = dim // 2
    f = torch.exp(torch.arange(half, device=t.device) * -(math.log(10000) / (half - 1)))
    a = t[:, None].float() * f[None]
    return torch.cat([a.sin(), a.cos()], dim=-1)


class Block(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm = nn.GroupNorm(4, cout)
        self.t = nn.Linear(tdim, cout * 2)

    def forward(self, x, te):
        scale, shift = self.t(te)[:, :, None, None].chunk(2, 1)
        return F.silu(self.norm(self.conv(x)) * (scale + 1) + shift)


class Unet(nn.Module):
    def __init__(self, dim=32, tdim=64):
        super().__init__()
        self.tdim = tdim
        self.time_mlp = nn.Sequential(nn.Linear(tdim, tdim), nn.GELU(), nn.Linear(tdim, tdim))
        self.init_conv = nn.Conv2d(3, dim, 7, padding=3)
        self.down = Block(dim, dim * 2, tdim)
        self.pool = nn.AvgPool2d(2)
        self.mid = Block(dim * 2, dim * 2, tdim)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec = Block(dim * 2 + dim, dim, tdim)
        self.final_conv = nn.Conv2d(dim, 3, 1)

    def forward(self, x, t):
        te = self.time_mlp(sinusoidal(t, self.tdim).to(x.dtype))
        h0 = self.init_conv(x)
        h1 = self.down(h0, te)
        h = self.mid(self.pool(h1), te)
        h = self.dec(torch.cat([self.up(h), h0], 1), te)
        return self.final_conv(h)


class GaussianDiffusion(nn.Module):
    def __init__(self, model, timesteps=1000, min_snr_gamma=5.0):
        super().__init__()
        self.model = model
        self.num_timesteps = timesteps
        self.min_snr_gamma = min_snr_gamma
        betas = torch.linspace(1e-4, 0.02, timesteps, dtype=torch.float64)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("alphas_cumprod", alphas_cumprod.float())
        self.register_buffer("sqrt_alphas_cumprod", alphas_cumprod.sqrt().float())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1 - alphas_cumprod).sqrt().float())

    @staticmethod
    def extract(a, t, shape):
        return a.gather(-1, t).reshape(t.shape[0], *((1,) * (len(shape) - 1)))

    def q_sample(self, x0, t, noise):
        return self.extract(self.sqrt_alphas_cumprod, t, x0.shape) * x0 + \
            self.extract(self.sqrt_one_minus_alphas_cumprod, t, x0.shape) * noise

    def p_losses(self, x0):
        b = x0.shape[0]
        t = torch.randint(0, self.num_timesteps, (b,), device=x0.device)
        noise = torch.randn_like(x0)
        x_t = self.q_sample(x0, t, noise)
        v = self.extract(self.sqrt_alphas_cumprod, t, x0.shape) * noise - \
            self.extract(self.sqrt_one_minus_alphas_cumprod, t, x0.shape) * x0
        pred = self.model(x_t, t)
        # soft-min-SNR weighting, converted to the v-prediction objective
        a = self.extract(self.alphas_cumprod, t, x0.shape)
        snr = a / (1 - a)
        soft_min_snr = snr * self.min_snr_gamma / (snr + self.min_snr_gamma)
        loss_weight = soft_min_snr / (snr + 1)
        loss = (pred - v).pow(2).mean(dim=(1, 2, 3), keepdim=True)
        return (loss * loss_weight).mean()


def batch(n):
    x = torch.zeros(n, 3, 16, 16)
    for i in range(n):
        r, c = torch.randint(0, 10, (2,)).tolist()
        x[i, :, r:r + 6, c:c + 6] = torch.rand(3, 1, 1) * 2 - 1
    return x


diffusion = GaussianDiffusion(Unet()).to(torch.bfloat16)
opt = torch.optim.Adam(diffusion.parameters(), lr=2e-4)
for step in range(30):
    x0 = batch(32).to(torch.bfloat16)
    loss = diffusion.p_losses(x0)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")
print("final loss", loss.item())
print("done")
