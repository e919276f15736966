"""x-prediction flow matching with a velocity-space loss ("predict the clean image, supervise
the velocity"), trained with accelerate on a bf16 model.

Convention: z_t = t * x + (1 - t) * e, t = 0 noise -> t = 1 data, v = x - e.
The network outputs x_pred; the implied velocity is v_pred = (x_pred - z_t) / (1 - t).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
DTYPE = torch.bfloat16


class MixerBlock(nn.Module):
    def __init__(self, tokens, dim):
        super().__init__()
        self.n1 = nn.LayerNorm(dim)
        self.tok = nn.Sequential(nn.Linear(tokens, tokens * 2), nn.GELU(), nn.Linear(tokens * 2, tokens))
        self.n2 = nn.LayerNorm(dim)
        self.ch = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))
        self.film = nn.Linear(dim, 2 * dim)

    def forward(self, x, c):
        s, b = self.film(c)[:, None].chunk(2, -1)
        x = x + self.tok(self.n1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.ch(self.n2(x) * (1 + s) + b)


class XPredMixer(nn.Module):
    def __init__(self, img=8, patch=2, dim=64, depth=3):
        super().__init__()
        self.img, self.patch = img, patch
        n = (img // patch) ** 2
        self.embed = nn.Linear(patch * patch, dim)
        self.t_mlp = nn.Sequential(nn.Linear(32, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.blocks = nn.ModuleList([MixerBlock(n, dim) for _ in range(depth)])
        self.head = nn.Linear(dim, patch * patch)

    def forward(self, z, t):
        B = z.shape[0]
        p, g = self.patch, self.img // self.patch
        tok = z.reshape(B, g, p, g, p).permute(0, 1, 3, 2, 4).reshape(B, g * g, p * p)
        f = torch.exp(-math.log(1000) * torch.arange(16, device=z.device) / 16)
        a = t.float()[:, None] * 1000 * f[None]
        c = self.t_mlp(torch.cat([a.sin(), a.cos()], -1).to(z.dtype))
        h = self.embed(tok)
        for blk in self.blocks:
            h = blk(h, c)
        out = self.head(h).reshape(B, g, g, p, p).permute(0, 1, 3, 2, 4)
        return out.reshape(B, self.img, self.img)


def make_data(n, img=8):
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, img), torch.linspace(-1, 1, img), indexing="ij")
    ang = torch.rand(n, 1, 1) * math.pi
    return torch.tanh(3 * (xx * ang.cos() + yy * ang.sin()))


accelerator = Accelerator(cpu=True)
model = XPredMixer().to(DTYPE)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = DataLoader(TensorDataset(make_data(2048)), batch_size=64, shuffle=True)
model, opt, loader = accelerator.prepare(model, opt, loader)

for epoch in range(1):
    for step, (x,) in enumerate(loader):
        x = x.to(DTYPE)
        e = torch.randn_like(x)
        t = torch.rand(x.shape[0], device=x.device).to(DTYPE)
        tt = t.view(-1, 1, 1)
        z = tt * x + (1 - tt) * e
        x_pred = model(z, t)
        v_pred = (x_pred - z) / (1 - tt)
        v = x - e
        loss = F.mse_loss(v_pred.float(), v.float())
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        if step % 8 == 0:
            accelerator.print(f"step {step:2d} loss {loss.item():.4f}")


@torch.no_grad()
def euler(net, n=4, steps=20):
    z = torch.randn(n, 8, 8, dtype=DTYPE)
    ts = torch.linspace(0, 1, steps + 1)
    for i in range(steps):
        t = ts[i].repeat(n).to(DTYPE)
        x_pred = net(z, t)
        v = (x_pred - z) / (1 - t.view(-1, 1, 1))
        z = z + (ts[i + 1] - ts[i]).item() * v
    return z.float()


samples = euler(accelerator.unwrap_model(model))
u8 = ((samples.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)
print("sample range", int(u8.min()), int(u8.max()))
print("done")
