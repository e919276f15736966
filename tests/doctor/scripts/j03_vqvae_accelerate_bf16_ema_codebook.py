"""VQ-VAE with an EMA codebook (van den Oord et al. / Razavi et al.), trained
with accelerate in bf16 mixed precision.

Images are 16x16 RGB tiles generated as uint8 arrays.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(3)
rng = np.random.default_rng(3)


class Tiles(Dataset):
    def __init__(self, n=256):
        yy, xx = np.mgrid[0:16, 0:16]
        self.imgs = np.empty((n, 16, 16, 3), dtype=np.uint8)
        for i in range(n):
            fx, fy = rng.uniform(0.2, 1.2, size=2)
            phase = rng.uniform(0, 6.28, size=3)
            for c in range(3):
                self.imgs[i, :, :, c] = (127.5 + 127.5 * np.sin(fx * xx + fy * yy + phase[c])).astype(np.uint8)

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        x = torch.from_numpy(self.imgs[i]).permute(2, 0, 1).float() / 127.5 - 1.0
        return x


class EMAQuantizer(nn.Module):
    def __init__(self, num_codes=64, dim=32, decay=0.99, eps=1e-5, beta=0.25):
        super().__init__()
        self.num_codes, self.dim, self.decay, self.eps, self.beta = num_codes, dim, decay, eps, beta
        embed = torch.randn(num_codes, dim)
        self.register_buffer("embed", embed)
        self.register_buffer("cluster_size", torch.zeros(num_codes))
        self.register_buffer("embed_avg", embed.clone())

    def forward(self, z):
        # z: (B, C, H, W) -> (BHW, C)
        b, c, h, w = z.shape
        flat = z.permute(0, 2, 3, 1).reshape(-1, c)
        dist = (flat.pow(2).sum(1, keepdim=True)
                - 2 * flat @ self.embed.t()
                + self.embed.pow(2).sum(1)[None, :])
        idx = dist.argmin(dim=1)
        quant = F.embedding(idx, self.embed).view(b, h, w, c).permute(0, 3, 1, 2)

        if self.training:
            with torch.no_grad():
                counts = torch.bincount(idx, minlength=self.num_codes)
                embed_sum = torch.zeros_like(self.embed_avg).index_add_(0, idx, flat)
                self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)
                self.embed_avg.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
                n = self.cluster_size.sum()
                smoothed = (self.cluster_size + self.eps) / (n + self.num_codes * self.eps) * n
                self.embed.copy_(self.embed_avg / smoothed.unsqueeze(1))

        commit = F.mse_loss(z, quant.detach())
        quant = z + (quant - z).detach()  # straight-through estimator
        return quant, self.beta * commit, idx


class VQVAE(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 32, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(32, 64, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(64, dim, 1),
        )
        self.quantizer = EMAQuantizer(dim=dim)
        self.decoder = nn.Sequential(
            nn.Conv2d(dim, 64, 3, 1, 1), nn.ReLU(),
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Tanh(),
        )

    def forward(self, x):
        z = self.encoder(x)
        q, commit_loss, idx = self.quantizer(z)
        return self.decoder(q), commit_loss, idx


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = VQVAE()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
loader = DataLoader(Tiles(), batch_size=32, shuffle=True)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

for epoch in range(3):
    for step, x in enumerate(loader):
        recon, commit_loss, idx = model(x)
        loss = F.mse_loss(recon, x) + commit_loss
        optimizer.zero_grad()
        accelerator.backward(loss)
        optimizer.step()
    used = idx.unique().numel()
    accelerator.print(f"epoch {epoch} loss {loss.item():.4f} codes used {used}")

accelerator.print("done")
