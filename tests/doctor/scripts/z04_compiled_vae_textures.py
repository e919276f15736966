import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class NoisyTextures(Dataset):
    """Procedural 3x32x32 textures with sensor noise."""

    def __init__(self, n=2048, seed=0):
        g = torch.Generator().manual_seed(seed)
        yy, xx = torch.meshgrid(torch.linspace(0, 1, 32), torch.linspace(0, 1, 32), indexing="ij")
        freq = torch.rand(n, 3, 1, 1, generator=g) * 12 + 2
        phase = torch.rand(n, 3, 1, 1, generator=g) * 6.28
        base = 0.5 + 0.5 * torch.sin(freq * (xx + yy) + phase)
        self.images = base + 0.5 * torch.randn(n, 3, 32, 32, generator=g)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i]


class VAE(nn.Module):
    def __init__(self, in_dim=3 * 32 * 32, hidden=64, latent=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(in_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, in_dim))

    def forward(self, x):
        h = self.encoder(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z).view_as(x), mu, logvar


def vae_loss(recon, x, mu, logvar, beta=1.0):
    rec = ((recon - x) ** 2).sum()
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (rec + beta * kl) / x.size(0), rec, kl


def main():
    torch.manual_seed(0)
    loader = DataLoader(NoisyTextures(), batch_size=256, shuffle=True, drop_last=True)
    vae = VAE().half()
    model = torch.compile(vae)
    opt = torch.optim.SGD(vae.parameters(), lr=1e-4, momentum=0.9)

    t0 = time.time()
    for epoch in range(3):
        for i, x in enumerate(loader):
            x = x.half()
            recon, mu, logvar = model(x)
            loss, rec, kl = vae_loss(recon, x, mu, logvar)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss/img {loss.item():.3f} rec {rec.item():.1f} kl {kl.item():.2f} "
              f"({time.time() - t0:.1f}s)")

    vae.eval()
    with torch.no_grad():
        x = next(iter(loader))[:8].half()
        recon, _, _ = model(x)
        print("eval mse per pixel:", ((recon - x) ** 2).mean().item())


if __name__ == "__main__":
    main()
