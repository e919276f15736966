import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


def cosine_beta_schedule(timesteps, s=0.008):
    steps = timesteps + 1
    x = np.linspace(0, timesteps, steps)
    alphas_cumprod = np.cos(((x / timesteps) + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return np.clip(betas, 0, 0.999)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, ch, tdim):
        super().__init__()
        self.norm1 = nn.GroupNorm(8, ch)
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.temb = nn.Linear(tdim, ch)
        self.norm2 = nn.GroupNorm(8, ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, temb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.temb(temb)[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return x + h


class TinyUNet(nn.Module):
    def __init__(self, in_ch=1, ch=32, tdim=64):
        super().__init__()
        self.tdim = tdim
        self.time_mlp = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.stem = nn.Conv2d(in_ch, ch, 3, padding=1)
        self.down = ResBlock(ch, tdim)
        self.pool = nn.Conv2d(ch, ch, 4, stride=2, padding=1)
        self.mid = ResBlock(ch, tdim)
        self.up = nn.ConvTranspose2d(ch, ch, 4, stride=2, padding=1)
        self.dec = ResBlock(ch, tdim)
        self.out = nn.Conv2d(ch, in_ch, 3, padding=1)

    def forward(self, x, t):
        temb = self.time_mlp(timestep_embedding(t, self.tdim))
        h = self.stem(x)
        skip = self.down(h, temb)
        h = self.mid(self.pool(skip), temb)
        h = self.dec(self.up(h) + skip, temb)
        return self.out(h)


class GaussianDiffusion(nn.Module):
    def __init__(self, model, timesteps=200):
        super().__init__()
        self.model = model
        self.timesteps = timesteps
        betas = cosine_beta_schedule(timesteps)
        alphas_cumprod = np.cumprod(1.0 - betas)
        self.register_buffer("sqrt_alphas_cumprod", torch.from_numpy(np.sqrt(alphas_cumprod)))
        self.register_buffer("sqrt_one_minus_alphas_cumprod", torch.from_numpy(np.sqrt(1.0 - alphas_cumprod)))

    def q_sample(self, x0, t, noise):
        a = self.sqrt_alphas_cumprod[t].view(-1, 1, 1, 1)
        b = self.sqrt_one_minus_alphas_cumprod[t].view(-1, 1, 1, 1)
        return a * x0 + b * noise

    def forward(self, x0):
        t = torch.randint(0, self.timesteps, (x0.shape[0],))
        noise = torch.randn_like(x0)
        x_t = self.q_sample(x0, t, noise)
        pred = self.model(x_t, t)
        return F.mse_loss(pred, noise)


def make_blobs(n, size=16):
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    cx = torch.randint(4, size - 4, (n, 1, 1))
    cy = torch.randint(4, size - 4, (n, 1, 1))
    r = torch.randint(2, 5, (n, 1, 1))
    img = (((xx - cx) ** 2 + (yy - cy) ** 2) < r ** 2).float()
    return (img * 2 - 1).unsqueeze(1)


def main():
    data = make_blobs(256)
    diffusion = GaussianDiffusion(TinyUNet())
    opt = torch.optim.AdamW(diffusion.parameters(), lr=2e-4)
    for step in range(30):
        idx = torch.randint(0, data.shape[0], (32,))
        loss = diffusion(data[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(diffusion.parameters(), 1.0)
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    print("final loss", loss.item())


if __name__ == "__main__":
    main()
