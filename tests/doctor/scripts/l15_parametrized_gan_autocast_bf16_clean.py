"""Small GAN on a 2-D ring of Gaussians using torch.nn.utils.parametrizations:
spectral_norm in the discriminator, weight_norm and an orthogonal layer in the generator.
Training runs under CPU bf16 autocast; the generator is exported as a bf16 safetensors
checkpoint and reloaded into a fresh fp32 model with load_state_dict."""
import math
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm

torch.manual_seed(0)
Z = 8


def real_batch(n):
    k = torch.randint(0, 8, (n,)).float()
    centers = torch.stack([torch.cos(2 * math.pi * k / 8), torch.sin(2 * math.pi * k / 8)], 1) * 2
    return centers + 0.05 * torch.randn(n, 2)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = weight_norm(nn.Linear(Z, 64))
        self.mix = orthogonal(nn.Linear(64, 64))
        self.fc2 = weight_norm(nn.Linear(64, 2))

    def forward(self, z):
        h = F.leaky_relu(self.fc1(z), 0.2)
        h = F.leaky_relu(self.mix(h), 0.2)
        return self.fc2(h)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            spectral_norm(nn.Linear(2, 64)), nn.LeakyReLU(0.2),
            spectral_norm(nn.Linear(64, 64)), nn.LeakyReLU(0.2),
            spectral_norm(nn.Linear(64, 1)))

    def forward(self, x):
        return self.net(x)


def main():
    t0 = time.time()
    G, D = Generator(), Discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.9))
    for step in range(150):
        real = real_batch(128)
        z = torch.randn(128, Z)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            fake = G(z)
            d_real, d_fake = D(real), D(fake.detach())
            loss_d = (F.binary_cross_entropy_with_logits(d_real.float(), torch.ones_like(d_real, dtype=torch.float32))
                      + F.binary_cross_entropy_with_logits(d_fake.float(), torch.zeros_like(d_fake, dtype=torch.float32)))
        opt_d.zero_grad(); loss_d.backward(); opt_d.step()

        with torch.autocast("cpu", dtype=torch.bfloat16):
            d_gen = D(G(z))
            loss_g = F.binary_cross_entropy_with_logits(d_gen.float(), torch.ones_like(d_gen, dtype=torch.float32))
        opt_g.zero_grad(); loss_g.backward(); opt_g.step()
        if step % 50 == 0:
            print(f"step {step:3d} loss_d {loss_d.item():.3f} loss_g {loss_g.item():.3f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "generator.safetensors")
        save_file({k: v.to(torch.bfloat16).contiguous() for k, v in G.state_dict().items()}, path)
        G2 = Generator()
        missing, unexpected = G2.load_state_dict(load_file(path), strict=True)
    G2.eval()
    with torch.no_grad():
        samples = G2(torch.randn(1000, Z))
        ref = G(torch.randn(1000, Z))
    radius = samples.norm(dim=1)
    assert torch.isfinite(samples).all()
    w = G2.mix.weight
    ortho_err = (w @ w.T - torch.eye(64)).abs().max()
    print(f"sample radius {radius.mean():.3f}+-{radius.std():.3f} (ref {ref.norm(dim=1).mean():.3f}), "
          f"dtype {samples.dtype}, orthogonality error {ortho_err:.2e} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
