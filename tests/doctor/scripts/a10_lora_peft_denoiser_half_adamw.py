"""LoRA fine-tuning of a small transformer denoiser with peft.

The base denoiser is "pretrained" (here: briefly trained in fp32), then wrapped with a LoRA
config on the attention projections; the whole PEFT model is cast to fp16 to halve memory
and the LoRA parameters are fine-tuned with AdamW on a new style of data (epsilon prediction).
"""
import math
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)
SEQ, CH, DIM = 16, 8, 64  # 16 tokens of 8-dim "latent patches"


class Attention(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads = heads
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(dim, dim, bias=False)
        self.to_v = nn.Linear(dim, dim, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = (f(x).view(B, N, self.heads, -1).transpose(1, 2) for f in (self.to_q, self.to_k, self.to_v))
        o = F.scaled_dot_product_attention(q, k, v)
        return self.to_out(o.transpose(1, 2).reshape(B, N, C))


class Layer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.time_proj = nn.Linear(dim, dim)

    def forward(self, x, temb):
        x = x + self.time_proj(temb)[:, None]
        x = x + self.attn(self.norm1(x))
        return x + self.ff(self.norm2(x))


class Denoiser(nn.Module):
    def __init__(self, depth=3):
        super().__init__()
        self.proj_in = nn.Linear(CH, DIM)
        self.pos = nn.Parameter(torch.randn(1, SEQ, DIM) * 0.02)
        self.layers = nn.ModuleList([Layer(DIM) for _ in range(depth)])
        self.proj_out = nn.Linear(DIM, CH)

    def time_embedding(self, t):
        half = DIM // 2
        f = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
        a = t.float()[:, None] * f[None]
        return torch.cat([a.sin(), a.cos()], -1).to(self.pos.dtype)

    def forward(self, x, t):
        temb = self.time_embedding(t)
        h = self.proj_in(x) + self.pos
        for layer in self.layers:
            h = layer(h, temb)
        return self.proj_out(h)


T = 1000
ac = torch.cumprod(1 - torch.linspace(1e-4, 0.02, T), 0)


def diffusion_loss(model, x0):
    t = torch.randint(0, T, (x0.shape[0],))
    eps = torch.randn_like(x0)
    a = ac[t].view(-1, 1, 1).to(x0.dtype)
    x_t = a.sqrt() * x0 + (1 - a).sqrt() * eps
    return F.mse_loss(model(x_t, t).float(), eps.float())


# ---------------------------------------------------------------- "pretraining" in fp32
base = Denoiser()
opt = torch.optim.AdamW(base.parameters(), lr=3e-4)
for step in range(20):
    x0 = torch.sin(torch.linspace(0, 6, SEQ))[None, :, None] * torch.randn(32, 1, CH)
    loss = diffusion_loss(base, x0)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"pretrain loss {loss.item():.4f}")

# ---------------------------------------------------------------- LoRA fine-tune in fp16
config = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["to_q", "to_k", "to_v", "to_out"])
model = get_peft_model(base, config)
model = model.to(torch.float16)
model.print_trainable_parameters()
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4, weight_decay=1e-2)

for step in range(30):
    x0 = torch.cos(torch.linspace(0, 3, SEQ))[None, :, None] * torch.randn(32, 1, CH)
    loss = diffusion_loss(model, x0.half())
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"lora step {step} loss {loss.item():.4f}")

out_dir = tempfile.mkdtemp(prefix="lora_denoiser_")
model.save_pretrained(out_dir)
print("saved adapter to", out_dir)
print("done")
