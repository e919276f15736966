"""Clean reference: class-conditional rectified flow (flow matching) with a tiny DiT,
trained with accelerate (bf16 mixed precision on CPU), sampled with Euler and Heun
solvers and classifier-free guidance using a learned null class embedding.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
NUM_CLASSES, IMG, PATCH, DIM = 3, 8, 2, 64


def t_embedding(t, dim=DIM, scale=1000.0):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device, dtype=torch.float32) / half)
    a = (t.float() * scale)[:, None] * freqs[None]
    return torch.cat([a.cos(), a.sin()], -1)


class Block(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.n1 = nn.LayerNorm(dim, elementwise_affine=False)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.n2 = nn.LayerNorm(dim, elementwise_affine=False)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))
        self.mod = nn.Linear(dim, 4 * dim)
        nn.init.zeros_(self.mod.weight)
        nn.init.zeros_(self.mod.bias)

    def forward(self, x, c):
        s1, b1, s2, b2 = self.mod(F.silu(c))[:, None].chunk(4, -1)
        h = self.n1(x) * (1 + s1) + b1
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.n2(x) * (1 + s2) + b2)


class FlowDiT(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.patch = nn.Linear(3 * PATCH * PATCH, DIM)
        self.pos = nn.Parameter(torch.randn(1, (IMG // PATCH) ** 2, DIM) * 0.02)
        self.t_mlp = nn.Sequential(nn.Linear(DIM, DIM), nn.SiLU(), nn.Linear(DIM, DIM))
        self.class_emb = nn.Embedding(NUM_CLASSES + 1, DIM)  # last row = learned null class
        self.blocks = nn.ModuleList([Block(DIM) for _ in range(depth)])
        self.out = nn.Linear(DIM, 3 * PATCH * PATCH)

    def forward(self, x, t, y):
        B = x.shape[0]
        g = IMG // PATCH
        p = x.reshape(B, 3, g, PATCH, g, PATCH).permute(0, 2, 4, 1, 3, 5).reshape(B, g * g, -1)
        h = self.patch(p) + self.pos
        c = self.t_mlp(t_embedding(t)) + self.class_emb(y)
        for blk in self.blocks:
            h = blk(h, c)
        o = self.out(h).reshape(B, g, g, 3, PATCH, PATCH).permute(0, 3, 1, 4, 2, 5)
        return o.reshape(B, 3, IMG, IMG)


def make_dataset(n):
    y = torch.randint(0, NUM_CLASSES, (n,))
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, IMG), torch.linspace(-1, 1, IMG), indexing="ij")
    pats = torch.stack([xx, yy, xx * yy])  # class-dependent gradients
    x = pats[y][:, None].expand(n, 3, IMG, IMG) * (torch.rand(n, 3, 1, 1) * 0.5 + 0.5)
    return TensorDataset(x.clone(), y)


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = FlowDiT()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = DataLoader(make_dataset(512), batch_size=32, shuffle=True)
model, opt, loader = accelerator.prepare(model, opt, loader)

p_uncond = 0.1
model.train()
for epoch in range(2):
    for step, (x1, y) in enumerate(loader):
        x0 = torch.randn_like(x1)                       # noise
        t = torch.sigmoid(torch.randn(x1.shape[0], device=x1.device))  # logit-normal t, fp32
        tt = t.view(-1, 1, 1, 1)
        x_t = (1 - tt) * x0 + tt * x1
        target = x1 - x0
        y = torch.where(torch.rand_like(t) < p_uncond, torch.full_like(y, NUM_CLASSES), y)
        with accelerator.autocast():
            v = model(x_t, t, y)
        loss = F.mse_loss(v.float(), target)
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
    accelerator.print(f"epoch {epoch} loss {loss.item():.4f}")


@torch.no_grad()
def velocity(net, x, t, y, w):
    n = x.shape[0]
    tt = torch.full((2 * n,), float(t))
    yy = torch.cat([y, torch.full_like(y, NUM_CLASSES)])
    with accelerator.autocast():
        v = net(torch.cat([x, x]), tt, yy).float()
    v_c, v_u = v.chunk(2)
    return v_u + w * (v_c - v_u)


@torch.no_grad()
def sample(net, y, steps=10, w=2.0, heun=False):
    x = torch.randn(y.shape[0], 3, IMG, IMG)
    ts = torch.linspace(0, 1, steps + 1)
    for i in range(steps):
        t, t_next = ts[i], ts[i + 1]
        d = velocity(net, x, t, y, w)
        x_next = x + (t_next - t) * d
        if heun:
            d2 = velocity(net, x_next, t_next, y, w)
            x_next = x + (t_next - t) * 0.5 * (d + d2)
        x = x_next
    return x


net = accelerator.unwrap_model(model).eval()
labels = torch.arange(NUM_CLASSES)
for heun in (False, True):
    s = sample(net, labels, heun=heun)
    u8 = ((s.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)
    print("heun" if heun else "euler", "uint8 samples", tuple(u8.shape), int(u8.min()), int(u8.max()))
print("done")
