"""AdaLoRA fine-tuning of a frozen diffusion denoiser on a new texture domain."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from peft import AdaLoraConfig, get_peft_model

torch.manual_seed(0)
T_STEPS, SIDE, BS, STEPS = 250, 8, 128, 60
D = SIDE * SIDE


def fourier_features(c, dim=32):
    freqs = torch.exp(torch.linspace(0, math.log(64.0), dim // 2, dtype=c.dtype))
    ang = c[:, None] * freqs[None]
    return torch.cat([ang.sin(), ang.cos()], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, width=192):
        super().__init__()
        betas = torch.linspace(1e-4, 0.02, T_STEPS)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.inp = nn.Linear(D + 32, width)
        self.hidden = nn.Sequential(nn.SiLU(), nn.Linear(width, width), nn.SiLU(), nn.Linear(width, width), nn.SiLU())
        self.out = nn.Linear(width, D)

    def forward(self, x_t, t):
        a = self.alphas_cumprod[t]
        sigma = ((1.0 - a) / a).sqrt()
        c_noise = 0.25 * torch.log(sigma)
        h = self.inp(torch.cat([x_t, fourier_features(c_noise)], dim=-1))
        return self.out(self.hidden(h))


def textures(n):
    """Target domain: smooth 8x8 gradients with a random checker overlay, scaled to [-1, 1]."""
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, SIDE), torch.linspace(-1, 1, SIDE), indexing="ij")
    g = torch.rand(n, 2, 1, 1) * 2 - 1
    base = g[:, 0] * xx + g[:, 1] * yy
    checker = ((torch.arange(SIDE)[:, None] + torch.arange(SIDE)[None]) % 2).float() * 0.3
    return (0.7 * base + checker * torch.sign(torch.randn(n, 1, 1))).flatten(1).clamp(-1, 1)


denoiser = Denoiser().half()
cfg = AdaLoraConfig(
    init_r=12, target_r=4, tinit=10, tfinal=15, deltaT=5, total_step=STEPS,
    lora_alpha=16, target_modules=["inp", "hidden.1", "hidden.3", "out"],
)
model = get_peft_model(denoiser, cfg)
model.print_trainable_parameters()

opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-3)
for step in range(STEPS):
    x0 = textures(BS).half()
    t = torch.randint(0, T_STEPS, (BS,))
    a = model.alphas_cumprod[t][:, None]
    x_t = a.sqrt() * x0 + (1 - a).sqrt() * torch.randn_like(x0)
    x0_pred = model(x_t, t)
    loss = F.mse_loss(x0_pred.float(), x0.float())
    loss.backward()
    opt.step()
    model.base_model.update_and_allocate(step)
    opt.zero_grad(set_to_none=True)
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")

print(f"final loss {loss.item():.4f}")
