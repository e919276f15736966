"""Rectified flow on 16x16 single-channel images with a small conv net under bf16 autocast,
followed by a Heun (2nd order) ODE sampler.  Runs on CUDA when available, else on CPU.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
amp_dtype = torch.bfloat16


class VelocityNet(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.t_proj = nn.Sequential(nn.Linear(16, ch), nn.SiLU(), nn.Linear(ch, ch))
        self.conv_in = nn.Conv2d(1, ch, 3, padding=1)
        self.body = nn.ModuleList([nn.Conv2d(ch, ch, 3, padding=1) for _ in range(3)])
        self.norms = nn.ModuleList([nn.GroupNorm(8, ch) for _ in range(3)])
        self.conv_out = nn.Conv2d(ch, 1, 3, padding=1)

    def forward(self, x, t):
        f = torch.exp(-math.log(100.0) * torch.arange(8, device=x.device) / 8)
        a = t.float()[:, None] * 100 * f[None]
        c = self.t_proj(torch.cat([a.sin(), a.cos()], -1))[:, :, None, None]
        h = self.conv_in(x) + c
        for conv, norm in zip(self.body, self.norms):
            h = h + conv(F.silu(norm(h)))
        return self.conv_out(F.silu(h))


def rings(n):
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, 16), torch.linspace(-1, 1, 16), indexing="ij")
    r = torch.rand(n, 1, 1) * 0.5 + 0.2
    return torch.tanh(10 * (0.1 - ((xx ** 2 + yy ** 2).sqrt() - r).abs()))[:, None]


model = VelocityNet().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
for step in range(40):
    x1 = rings(32).to(device)
    x0 = torch.randn_like(x1)
    t = torch.rand(x1.shape[0], device=device)
    xt = (1 - t[:, None, None, None]) * x0 + t[:, None, None, None] * x1
    with torch.autocast(device_type=device, dtype=amp_dtype):
        v = model(xt, t)
    loss = F.mse_loss(v.float(), x1 - x0)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")


@torch.no_grad()
def heun_sample(model, shape, steps=12, device="cuda"):
    x = torch.randn(shape, device=device)
    ts = torch.linspace(0, 1, steps + 1, device=device)
    for i in range(steps):
        t, t_next = ts[i], ts[i + 1]
        dt = t_next - t
        with torch.autocast(device_type=x.device.type, dtype=amp_dtype):
            v1 = model(x, t.expand(shape[0])).float()
            x_pred = x + dt * v1
            v2 = model(x_pred, t_next.expand(shape[0])).float()
        x = x + dt * 0.5 * (v1 + v2)
    return x


model.eval()
samples = heun_sample(model, (8, 1, 16, 16))
images = ((samples.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).cpu()
print("images", tuple(images.shape), images.dtype)
print("done")
