import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
PIX, N_LATENT, N_CLASSES, BATCH = 64, 4, 8, 64


def make_dataset(n):
    protos = (torch.rand(N_CLASSES, PIX) > 0.5).float()
    codes = torch.randint(0, N_CLASSES, (n, N_LATENT))
    parts = protos[codes].view(n, N_LATENT, PIX)[:, torch.arange(N_LATENT), :].amax(1)
    flips = torch.rand(n, PIX) < 0.05
    return torch.where(flips, 1 - parts, parts)


class GumbelVAE(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(PIX, hidden), nn.ReLU(), nn.Linear(hidden, N_LATENT * N_CLASSES))
        self.dec = nn.Sequential(nn.Linear(N_LATENT * N_CLASSES, hidden), nn.ReLU(), nn.Linear(hidden, PIX))

    def forward(self, x, tau):
        logits = self.enc(x).view(-1, N_LATENT, N_CLASSES)
        z = F.gumbel_softmax(logits, tau=tau, hard=True, dim=-1)
        recon_logits = self.dec(z.view(x.size(0), -1))
        q = logits.softmax(-1)
        kl = (q * (q.clamp_min(1e-4).log() + math.log(N_CLASSES))).sum((1, 2))
        return recon_logits, kl


data = make_dataset(1024)
model = GumbelVAE().half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
tau = 1.0

for epoch in range(5):
    perm = torch.randperm(data.size(0))
    total = 0.0
    for i in range(0, data.size(0), BATCH):
        x = data[perm[i:i + BATCH]].half()
        recon_logits, kl = model(x, tau)
        recon = F.binary_cross_entropy_with_logits(recon_logits, x, reduction="none").sum(-1)
        loss = (recon + kl).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    tau = max(0.3, tau * 0.7)
    print(f"epoch {epoch} tau {tau:.2f} neg-elbo {total / (data.size(0) // BATCH):.3f}")
