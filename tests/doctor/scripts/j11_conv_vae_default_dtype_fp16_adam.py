"""Convolutional VAE on 16x16 icons. To run the whole thing in half precision the
script switches the default dtype to float16 before building the model, so every
parameter and every freshly created tensor is fp16.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float16)
torch.manual_seed(11)
rng = np.random.default_rng(11)
LATENT, BETA = 16, 0.5


def make_icons(n):
    yy, xx = np.mgrid[0:16, 0:16]
    out = np.zeros((n, 16, 16, 3), dtype=np.uint8)
    for i in range(n):
        kind = rng.integers(0, 3)
        c = rng.integers(80, 256, size=3)
        if kind == 0:
            out[i][(yy - 8) ** 2 + (xx - 8) ** 2 < rng.uniform(9, 40)] = c
        elif kind == 1:
            a, b = rng.integers(2, 7, size=2)
            out[i, a:16 - a, b:16 - b] = c
        else:
            out[i][np.abs(yy - 8) + np.abs(xx - 8) < rng.integers(3, 8)] = c
    return out


class ConvVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, 32, 4, 2, 1), nn.LeakyReLU(0.2),   # 8x8
            nn.Conv2d(32, 64, 4, 2, 1), nn.LeakyReLU(0.2),  # 4x4
            nn.Flatten(),
        )
        self.fc_mu = nn.Linear(64 * 16, LATENT)
        self.fc_logvar = nn.Linear(64 * 16, LATENT)
        self.fc_dec = nn.Linear(LATENT, 64 * 16)
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.ConvTranspose2d(32, 3, 4, 2, 1),
        )

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.fc_mu(h), self.fc_logvar(h).clamp(-10, 10)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        x_hat = torch.tanh(self.dec(self.fc_dec(z).view(-1, 64, 4, 4)))
        return x_hat, mu, logvar


model = ConvVAE()
opt = torch.optim.Adam(model.parameters(), lr=5e-4)
icons = make_icons(512)
print("param dtype", next(model.parameters()).dtype)

for epoch in range(3):
    perm = rng.permutation(len(icons))
    for i in range(0, len(icons), 64):
        batch = icons[perm[i:i + 64]]
        x = torch.as_tensor(batch / 127.5 - 1.0, dtype=torch.get_default_dtype()).permute(0, 3, 1, 2)
        x_hat, mu, logvar = model(x)
        rec = F.mse_loss(x_hat, x)
        kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        loss = rec + BETA * kl
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} rec {rec.item():.4f} kl {kl.item():.4f}")

with torch.no_grad():
    samples = torch.tanh(model.dec(model.fc_dec(torch.randn(8, LATENT)).view(-1, 64, 4, 4)))
    imgs = ((samples.float() + 1) * 127.5).clamp(0, 255).round().to(torch.uint8).permute(0, 2, 3, 1).numpy()
print("generated", imgs.shape, imgs.dtype, "mean", imgs.mean())
