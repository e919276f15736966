"""Clean reference: DDPM (epsilon prediction) with a tiny U-Net trained under CPU bf16
autocast with fp32 master weights, an fp32 EMA of the denoiser, and DDIM sampling
followed by the usual clamp -> uint8 conversion.
"""
import copy
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)

T = 1000
# schedule in NumPy float64, converted ONCE to float32 torch tensors
betas_np = np.linspace(1e-4, 0.02, T, dtype=np.float64)
alphas_cumprod_np = np.cumprod(1.0 - betas_np)
alphas_cumprod = torch.from_numpy(alphas_cumprod_np).float()
sqrt_ac = alphas_cumprod.sqrt()
sqrt_1m_ac = (1.0 - alphas_cumprod).sqrt()


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


class AttnBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.norm = nn.GroupNorm(8, ch)
        self.qkv = nn.Conv2d(ch, ch * 3, 1)
        self.proj = nn.Conv2d(ch, ch, 1)

    def forward(self, x):
        B, C, H, W = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(B, 3, C, H * W).unbind(1)
        h = F.scaled_dot_product_attention(q.transpose(1, 2)[:, None], k.transpose(1, 2)[:, None], v.transpose(1, 2)[:, None])
        h = h[:, 0].transpose(1, 2).reshape(B, C, H, W)
        return x + self.proj(h)


class TinyUNet(nn.Module):
    def __init__(self, ch=32, tdim=64):
        super().__init__()
        self.tdim = tdim
        self.time_mlp = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.conv_in = nn.Conv2d(3, ch, 3, padding=1)
        self.down1 = ResBlock(ch, ch, tdim)
        self.downsample = nn.Conv2d(ch, ch * 2, 3, stride=2, padding=1)
        self.mid = ResBlock(ch * 2, ch * 2, tdim)
        self.mid_attn = AttnBlock(ch * 2)
        self.upsample = nn.ConvTranspose2d(ch * 2, ch, 4, stride=2, padding=1)
        self.up1 = ResBlock(ch * 2, ch, tdim)
        self.norm_out = nn.GroupNorm(8, ch)
        self.conv_out = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x, t):
        temb = self.time_mlp(timestep_embedding(t, self.tdim))
        h0 = self.conv_in(x)
        h1 = self.down1(h0, temb)
        h = self.mid_attn(self.mid(self.downsample(h1), temb))
        h = self.upsample(h)
        h = self.up1(torch.cat([h, h1], dim=1), temb)
        return self.conv_out(F.silu(self.norm_out(h)))


def make_batch(bs):
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, 16), torch.linspace(-1, 1, 16), indexing="ij")
    cx, cy = torch.rand(bs, 1, 1) * 2 - 1, torch.rand(bs, 1, 1) * 2 - 1
    blob = torch.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) * 4)
    colour = torch.rand(bs, 3, 1, 1) * 2 - 1
    return (blob[:, None] * colour).clamp(-1, 1)


model = TinyUNet()
ema = copy.deepcopy(model).requires_grad_(False)
opt = torch.optim.AdamW(model.parameters(), lr=2e-4, weight_decay=0.0)
ema_decay = 0.99


@torch.no_grad()
def update_ema(ema_model, model, decay):
    for pe, p in zip(ema_model.parameters(), model.parameters()):
        pe.mul_(decay).add_(p.detach(), alpha=1 - decay)


for step in range(40):
    x0 = make_batch(16)
    t = torch.randint(0, T, (x0.shape[0],))
    noise = torch.randn_like(x0)
    x_t = sqrt_ac[t][:, None, None, None] * x0 + sqrt_1m_ac[t][:, None, None, None] * noise
    with torch.autocast("cpu", dtype=torch.bfloat16):
        pred = model(x_t, t)
    loss = F.mse_loss(pred.float(), noise)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    update_ema(ema, model, ema_decay)
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")


@torch.no_grad()
def ddim_sample(net, n=4, steps=25, eta=0.0):
    ts = torch.linspace(T - 1, 0, steps).round().long()
    x = torch.randn(n, 3, 16, 16)
    for i, t in enumerate(ts):
        a_t = alphas_cumprod[t]
        a_prev = alphas_cumprod[ts[i + 1]] if i + 1 < len(ts) else torch.tensor(1.0)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            eps = net(x, t.repeat(n)).float()
        x0 = ((x - (1 - a_t).sqrt() * eps) / a_t.sqrt()).clamp(-1, 1)
        sigma = eta * ((1 - a_prev) / (1 - a_t) * (1 - a_t / a_prev)).sqrt()
        dir_xt = (1 - a_prev - sigma ** 2).clamp(min=0).sqrt() * eps
        x = a_prev.sqrt() * x0 + dir_xt + sigma * torch.randn_like(x)
    return x


ema.eval()
samples = ddim_sample(ema)
assert torch.isfinite(samples).all()
images = ((samples.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).permute(0, 2, 3, 1).numpy()
print("images", images.shape, images.dtype, images.min(), images.max())
print("done")
