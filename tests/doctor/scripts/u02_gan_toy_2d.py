"""Toy 2-D GAN trained with bf16 autocast on CPU."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

Z = 8
G = nn.Sequential(nn.Linear(Z, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 2))
D = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))


def real_batch(n=128):
    k = torch.randint(0, 8, (n,))
    ang = k.float() * (2 * math.pi / 8)
    centers = torch.stack([torch.cos(ang), torch.sin(ang)], 1) * 2.0
    return centers + 0.05 * torch.randn(n, 2)


for step in range(20):
    real = real_batch()
    z = torch.randn(real.size(0), Z)

    # discriminator
    with torch.autocast("cpu", dtype=torch.bfloat16):
        fake = G(z)
        d_real = D(real)
        d_fake = D(fake.detach())
        loss_d = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
    opt_d.zero_grad(set_to_none=True)
    loss_d.backward()
    opt_d.step()

    # generator
    with torch.autocast("cpu", dtype=torch.bfloat16):
        d_fake = D(fake)
        loss_g = F.binary_cross_entropy_with_logits(d_fake, torch.ones_like(d_fake))
    opt_g.zero_grad(set_to_none=True)
    loss_g.backward()
    opt_g.step()

    if step % 5 == 0 or step == 19:
        print(f"step {step} loss_d {loss_d.item():.4f} loss_g {loss_g.item():.4f}")

assert torch.isfinite(loss_d) and torch.isfinite(loss_g)
