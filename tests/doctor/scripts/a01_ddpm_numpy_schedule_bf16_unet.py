"""DDPM epsilon-prediction training of a tiny U-Net in pure bf16.

The noise schedule is built once in NumPy (the way the original DDPM code does it)
and turned into torch tensors for the q_sample step.
"""
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)

T = 1000
betas = np.linspace(1e-4, 0.02, T, dtype=np.float64)
alphas = 1.0 - betas
alphas_cumprod = np.cumprod(alphas, axis=0)
sqrt_alphas_cumprod = torch.from_numpy(np.sqrt(alphas_cumprod))
sqrt_one_minus_alphas_cumprod = torch.from_numpy(np.sqrt(1.0 - alphas_cumprod))


def extract(a, t, x_shape):
    out = a.gather(-1, t)
    return out.reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.norm1 = nn.GroupNorm(8, cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.temb = nn.Linear(tdim, cout)
        self.norm2 = nn.GroupNorm(8, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, temb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.temb(F.silu(temb))[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return h + self.skip(x)


class TinyUNet(nn.Module):
    def __init__(self, ch=32, tdim=64):
        super().__init__()
        self.tdim = tdim
        self.time_mlp = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.conv_in = nn.Conv2d(3, ch, 3, padding=1)
        self.down1 = ResBlock(ch, ch, tdim)
        self.downsample = nn.Conv2d(ch, ch * 2, 3, stride=2, padding=1)
        self.mid = ResBlock(ch * 2, ch * 2, tdim)
        self.upsample = nn.ConvTranspose2d(ch * 2, ch, 4, stride=2, padding=1)
        self.up1 = ResBlock(ch * 2, ch, tdim)
        self.norm_out = nn.GroupNorm(8, ch)
        self.conv_out = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x, t):
        temb = self.time_mlp(timestep_embedding(t, self.tdim).to(self.conv_in.weight.dtype))
        h0 = self.conv_in(x)
        h1 = self.down1(h0, temb)
        h = self.mid(self.downsample(h1), temb)
        h = self.upsample(h)
        h = self.up1(torch.cat([h, h1], dim=1), temb)
        return self.conv_out(F.silu(self.norm_out(h)))


def make_batch(bs):
    # toy "images": smooth colour blobs in [-1, 1]
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, 16), torch.linspace(-1, 1, 16), indexing="ij")
    cx, cy = torch.rand(bs, 1, 1) * 2 - 1, torch.rand(bs, 1, 1) * 2 - 1
    blob = torch.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) * 4)
    colour = torch.rand(bs, 3, 1, 1) * 2 - 1
    return (blob[:, None] * colour).clamp(-1, 1)


model = TinyUNet().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=2e-4)

for step in range(30):
    x0 = make_batch(16).to(torch.bfloat16)
    t = torch.randint(0, T, (x0.shape[0],))
    noise = torch.randn_like(x0)
    x_t = extract(sqrt_alphas_cumprod, t, x0.shape) * x0 + extract(sqrt_one_minus_alphas_cumprod, t, x0.shape) * noise
    pred = model(x_t, t)
    loss = F.mse_loss(pred.float(), noise.float())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
