"""Adapt the decoder of a small MLP VAE to a new image domain with LoKr."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from peft import LoKrConfig, get_peft_model

torch.manual_seed(0)
SIDE, LATENT, BS = 28, 16, 256
D_IN = SIDE * SIDE


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(D_IN, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU())
        self.mu = nn.Linear(128, LATENT)
        self.logvar = nn.Linear(128, LATENT)
        self.dec = nn.Sequential(
            nn.Linear(LATENT, 128), nn.ReLU(), nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, D_IN)
        )

    def forward(self, x):
        h = self.enc(x.flatten(1))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.dec(z)), mu, logvar


def vae_loss(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x.flatten(1), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def stripes(n):
    """New domain: random oriented stripe patterns with soft edges."""
    yy, xx = torch.meshgrid(torch.arange(SIDE), torch.arange(SIDE), indexing="ij")
    angle = torch.rand(n, 1, 1) * 3.14159
    freq = 0.3 + 0.4 * torch.rand(n, 1, 1)
    phase = torch.rand(n, 1, 1) * 6.28
    wave = torch.sin(freq * (xx * torch.cos(angle) + yy * torch.sin(angle)) + phase)
    return (0.5 + 0.5 * wave).clamp(0, 1)


vae = VAE().half()
cfg = LoKrConfig(r=8, alpha=8, target_modules=["dec.0", "dec.2", "dec.4"], decompose_factor=8)
model = get_peft_model(vae, cfg)
model.print_trainable_parameters()

data = stripes(2048).half()
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)

for epoch in range(3):
    model.train()
    total = 0.0
    for i in range(0, len(data), BS):
        x = data[i : i + BS]
        recon, mu, logvar = model(x)
        loss = vae_loss(recon, x, mu, logvar)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} loss/sample {total / len(data):.3f}")

model.eval()
with torch.no_grad():
    x = stripes(BS).half()
    recon, mu, logvar = model(x)
    print(f"held-out loss/sample {vae_loss(recon, x, mu, logvar).item() / BS:.3f}")
