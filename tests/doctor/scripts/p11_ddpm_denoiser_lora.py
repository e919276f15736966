"""LoRA fine-tuning of a small MLP diffusion denoiser (DDPM, epsilon prediction) on a new 2-D data set."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)
np.random.seed(0)
T_STEPS, D_EMB = 200, 32


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.sin(args), torch.cos(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, h):
        return h + self.fc2(F.silu(self.fc1(self.norm(h))))


class Denoiser(nn.Module):
    def __init__(self, data_dim=2, width=128):
        super().__init__()
        betas = np.linspace(1e-4, 0.02, T_STEPS)
        self.register_buffer("alphas_cumprod", torch.from_numpy(np.cumprod(1.0 - betas)))
        self.in_proj = nn.Linear(data_dim + D_EMB, width)
        self.blocks = nn.ModuleList([ResBlock(width) for _ in range(3)])
        self.out_proj = nn.Linear(width, data_dim)

    def forward(self, x_t, t):
        h = self.in_proj(torch.cat([x_t, timestep_embedding(t, D_EMB)], dim=-1))
        for blk in self.blocks:
            h = blk(h)
        return self.out_proj(h)

    def q_sample(self, x0, t, noise):
        a = self.alphas_cumprod[t][:, None]
        return a.sqrt() * x0 + (1.0 - a).sqrt() * noise


def two_moons(n):
    theta = torch.rand(n) * math.pi
    upper = torch.rand(n) < 0.5
    x = torch.where(upper, torch.cos(theta), 1.0 - torch.cos(theta))
    y = torch.where(upper, torch.sin(theta), 0.5 - torch.sin(theta))
    return torch.stack([x, y], dim=1) + 0.05 * torch.randn(n, 2)


denoiser = Denoiser()
cfg = LoraConfig(r=8, lora_alpha=16, target_modules=["in_proj", "fc1", "fc2", "out_proj"], lora_dropout=0.0)
model = get_peft_model(denoiser, cfg)
model.print_trainable_parameters()

opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-3)
for step in range(300):
    x0 = two_moons(256)
    t = torch.randint(0, T_STEPS, (x0.shape[0],))
    noise = torch.randn_like(x0)
    x_t = model.q_sample(x0, t, noise)
    loss = F.mse_loss(model(x_t, t), noise)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}")

print(f"final loss {loss.item():.4f}")
