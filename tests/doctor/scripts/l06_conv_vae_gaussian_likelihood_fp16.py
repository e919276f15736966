"""Convolutional VAE on 32x32 RGB images with a Gaussian decoder likelihood
(torch.distributions.Normal, fixed observation noise) and an analytic KL term.
Whole model in fp16 (`.half()`) to fit larger batches."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence

torch.manual_seed(0)
LATENT, BATCH, OBS_SIGMA = 16, 64, 0.1


def make_images(n):
    # smooth random "natural-ish" images in [0, 1]
    z = torch.randn(n, 3, 8, 8)
    img = F.interpolate(z, size=32, mode="bilinear", align_corners=False)
    return torch.sigmoid(1.5 * img)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(16, 32, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(32, 32, 4, 2, 1), nn.ReLU(), nn.Flatten())
        self.mu = nn.Linear(32 * 4 * 4, LATENT)
        self.logvar = nn.Linear(32 * 4 * 4, LATENT)

    def forward(self, x):
        h = self.net(x)
        return self.mu(h), self.logvar(h)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(LATENT, 32 * 4 * 4)
        self.net = nn.Sequential(
            nn.ConvTranspose2d(32, 32, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(16, 3, 4, 2, 1))

    def forward(self, z):
        return torch.sigmoid(self.net(self.fc(z).view(-1, 32, 4, 4)))


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()

    def forward(self, x):
        mu, logvar = self.encoder(x)
        q = Normal(mu, torch.exp(0.5 * logvar))
        z = q.rsample()
        return self.decoder(z), q


def elbo_loss(x, recon, q):
    p_z = Normal(torch.zeros_like(q.loc), torch.ones_like(q.scale))
    p_x = Normal(recon, OBS_SIGMA)
    log_lik = p_x.log_prob(x).sum()
    kl = kl_divergence(q, p_z).sum()
    return -(log_lik - kl) / x.shape[0], log_lik, kl


def main():
    t0 = time.time()
    data = make_images(512)
    model = VAE().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)
    for epoch in range(2):
        perm = torch.randperm(len(data))
        for i in range(0, len(data), BATCH):
            x = data[perm[i:i + BATCH]].half()
            recon, q = model(x)
            loss, log_lik, kl = elbo_loss(x, recon, q)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if i % (2 * BATCH) == 0:
                print(f"epoch {epoch} it {i // BATCH:2d}  loss {loss.item():.2f}  "
                      f"log_lik {log_lik.item():.1f}  kl {kl.item():.2f}")
    with torch.no_grad():
        samples = model.decoder(torch.randn(8, LATENT).half())
    print(f"sample mean {samples.float().mean().item():.3f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
