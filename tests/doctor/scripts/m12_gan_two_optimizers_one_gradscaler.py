"""Small GAN on a 2-D ring-of-Gaussians toy distribution, fp16 autocast with one
GradScaler shared by the discriminator and generator optimizers."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
Z = 16


def sample_real(n):
    k = torch.randint(0, 8, (n,))
    ang = k.float() * (2 * math.pi / 8)
    centers = torch.stack([torch.cos(ang), torch.sin(ang)], 1) * 2.0
    return centers + 0.05 * torch.randn(n, 2)


G = nn.Sequential(nn.Linear(Z, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 2))
D = nn.Sequential(nn.Linear(2, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))
opt_d = torch.optim.SGD(D.parameters(), lr=0.02, momentum=0.5)
opt_g = torch.optim.SGD(G.parameters(), lr=0.02, momentum=0.5)
scaler = torch.amp.GradScaler("cpu")

for step in range(200):
    real = sample_real(64)
    z = torch.randn(64, Z)

    # ---- discriminator ----
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        fake = G(z)
        d_real = D(real)
        d_fake = D(fake.detach())
        loss_d = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
                 F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
    opt_d.zero_grad()
    scaler.scale(loss_d).backward()
    scaler.step(opt_d)

    # ---- generator ----
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        d_gen = D(fake)
        loss_g = F.binary_cross_entropy_with_logits(d_gen, torch.ones_like(d_gen))
    opt_g.zero_grad()
    scaler.scale(loss_g).backward()
    opt_g.step()

    scaler.update()
    if step % 40 == 0:
        print(f"step {step} loss_d {loss_d.item():.4f} loss_g {loss_g.item():.4f} scale {scaler.get_scale():.0f}")

with torch.no_grad():
    samples = G(torch.randn(512, Z))
print("sample radius mean", samples.norm(dim=1).mean().item())
