import math
import os
import tempfile

import torch
import torch.nn as nn


def sample_ring(n, gen, modes=8, radius=2.0, std=0.02):
    k = torch.randint(0, modes, (n,), generator=gen)
    angle = 2 * math.pi * k.float() / modes
    centers = torch.stack([radius * torch.cos(angle), radius * torch.sin(angle)], dim=1)
    return centers + std * torch.randn(n, 2, generator=gen)


def mlp(i, h, o):
    return nn.Sequential(nn.Linear(i, h), nn.LeakyReLU(0.2), nn.Linear(h, h), nn.LeakyReLU(0.2), nn.Linear(h, o))


class Discriminator(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.net = mlp(2, hidden, 1)

    def forward(self, x):
        return torch.sigmoid(self.net(x)).squeeze(-1)


def bce(p, target_is_real):
    if target_is_real:
        return -torch.log(p).mean()
    return -torch.log(1 - p).mean()


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    G, D = mlp(8, 128, 2), Discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    out_dir = tempfile.mkdtemp(prefix="gan_")
    fixed_z = torch.randn(512, 8, generator=gen)

    for step in range(1, 601):
        real = sample_ring(256, gen)
        z = torch.randn(256, 8, generator=gen)

        with torch.autocast("cpu", dtype=torch.float16):
            fake = G(z)
            d_loss = bce(D(real), True) + bce(D(fake.detach()), False)
        opt_d.zero_grad(set_to_none=True)
        d_loss.backward()
        opt_d.step()

        with torch.autocast("cpu", dtype=torch.float16):
            g_loss = bce(D(G(z)), True)
        opt_g.zero_grad(set_to_none=True)
        g_loss.backward()
        opt_g.step()

        if step % 100 == 0:
            with torch.no_grad():
                samples = G(fixed_z)
                spread = samples.norm(dim=1).mean().item()
            print(f"step {step} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f} mean radius {spread:.3f}")

    torch.save({"G": G.state_dict(), "D": D.state_dict()}, os.path.join(out_dir, "gan.pt"))
    print("saved to", out_dir)


if __name__ == "__main__":
    main()
