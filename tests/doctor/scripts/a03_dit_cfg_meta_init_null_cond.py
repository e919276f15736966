"""Class-conditional DiT with classifier-free guidance.

Part 1 trains a tiny DiT for a few steps (label dropout -> null conditioning) and saves
it with safetensors.  Part 2 is the "inference" path: the model skeleton is built on the
meta device (no wasted random init) and the checkpoint is loaded with assign=True, then
images are sampled with DDIM + classifier-free guidance and converted to uint8.
"""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file, load_file

torch.manual_seed(0)
NUM_CLASSES, IMG, PATCH, DIM = 4, 16, 4, 64
T = 1000
betas = torch.linspace(1e-4, 0.02, T)
alphas_cumprod = torch.cumprod(1 - betas, dim=0)


def t_embed(t, dim=DIM):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device) / half)
    a = t.float()[:, None] * freqs[None]
    return torch.cat([a.cos(), a.sin()], -1)


class LabelEmbedder(nn.Module):
    def __init__(self, n, dim, p_drop=0.1):
        super().__init__()
        self.table = nn.Embedding(n, dim)
        self.p_drop = p_drop
        # the unconditional ("null") embedding is a fixed zero vector, nothing to learn or save
        self.register_buffer("null_cond", torch.zeros(1, dim), persistent=False)

    def forward(self, y, force_drop=None):
        emb = self.table(y)
        if force_drop is None:
            force_drop = torch.rand(y.shape[0], device=y.device) < self.p_drop if self.training else torch.zeros_like(y, dtype=torch.bool)
        return torch.where(force_drop[:, None], self.null_cond, emb)


class DiTBlock(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, elementwise_affine=False)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim, elementwise_affine=False)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))
        self.ada = nn.Sequential(nn.SiLU(), nn.Linear(dim, 6 * dim))

    def forward(self, x, c):
        s1, b1, g1, s2, b2, g2 = self.ada(c)[:, None].chunk(6, dim=-1)
        h = self.norm1(x) * (1 + s1) + b1
        x = x + g1 * self.attn(h, h, h, need_weights=False)[0]
        h = self.norm2(x) * (1 + s2) + b2
        return x + g2 * self.mlp(h)


class DiT(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        n = (IMG // PATCH) ** 2
        self.x_embedder = nn.Conv2d(3, DIM, PATCH, stride=PATCH)
        self.pos_embed = nn.Parameter(torch.randn(1, n, DIM) * 0.02)
        self.t_embedder = nn.Sequential(nn.Linear(DIM, DIM), nn.SiLU(), nn.Linear(DIM, DIM))
        self.y_embedder = LabelEmbedder(NUM_CLASSES, DIM)
        self.blocks = nn.ModuleList([DiTBlock(DIM) for _ in range(depth)])
        self.final = nn.Linear(DIM, PATCH * PATCH * 3)

    def forward(self, x, t, y, force_drop=None):
        B = x.shape[0]
        h = self.x_embedder(x).flatten(2).transpose(1, 2) + self.pos_embed
        c = self.t_embedder(t_embed(t)) + self.y_embedder(y, force_drop)
        for blk in self.blocks:
            h = blk(h, c)
        h = self.final(h)
        g = IMG // PATCH
        h = h.reshape(B, g, g, PATCH, PATCH, 3).permute(0, 5, 1, 3, 2, 4)
        return h.reshape(B, 3, IMG, IMG)


def toy_batch(bs):
    y = torch.randint(0, NUM_CLASSES, (bs,))
    palette = torch.tensor([[1, -1, -1], [-1, 1, -1], [-1, -1, 1], [1, 1, -1]], dtype=torch.float32)
    x = palette[y][:, :, None, None].expand(bs, 3, IMG, IMG).clone()
    x += 0.1 * torch.randn_like(x)
    return x.clamp(-1, 1), y


# ------------------------------------------------------------------ part 1: train + save
model = DiT()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
model.train()
for step in range(30):
    x0, y = toy_batch(32)
    t = torch.randint(0, T, (32,))
    eps = torch.randn_like(x0)
    a = alphas_cumprod[t][:, None, None, None]
    xt = a.sqrt() * x0 + (1 - a).sqrt() * eps
    loss = F.mse_loss(model(xt, t, y), eps)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"train step {step} loss {loss.item():.4f}")

ckpt_dir = tempfile.mkdtemp(prefix="dit_cfg_")
ckpt = os.path.join(ckpt_dir, "dit.safetensors")
save_file(model.state_dict(), ckpt)
del model

# ------------------------------------------------------------------ part 2: load + sample
with torch.device("meta"):
    model = DiT()
missing, unexpected = model.load_state_dict(load_file(ckpt), assign=True)
model.eval()
print("loaded checkpoint:", ckpt, "missing", missing, "unexpected", unexpected)


@torch.no_grad()
def ddim_cfg(model, labels, steps=20, scale=4.0):
    n = labels.shape[0]
    x = torch.randn(n, 3, IMG, IMG)
    ts = torch.linspace(T - 1, 0, steps).long()
    drop = torch.cat([torch.zeros(n, dtype=torch.bool), torch.ones(n, dtype=torch.bool)])
    for i, t in enumerate(ts):
        tt = t.repeat(2 * n)
        eps_c, eps_u = model(torch.cat([x, x]), tt, torch.cat([labels, labels]), force_drop=drop).chunk(2)
        eps = eps_u + scale * (eps_c - eps_u)
        a_t = alphas_cumprod[t]
        a_prev = alphas_cumprod[ts[i + 1]] if i + 1 < steps else torch.tensor(1.0)
        x0 = (x - (1 - a_t).sqrt() * eps) / a_t.sqrt()
        x = a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * eps
    return x


samples = ddim_cfg(model, torch.arange(NUM_CLASSES))
images = ((samples.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)
print("images", tuple(images.shape), images.dtype, images.float().mean().item())
print("done")
