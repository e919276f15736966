"""Train a small MLP VAE for a few steps, export the decoder as a bf16 safetensors
file (half the size), then reload it in a lightweight sampling script that builds
the module on the meta device and assigns the checkpoint tensors directly.
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(12)
rng = np.random.default_rng(12)
LATENT, SIDE = 8, 12


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(SIDE * SIDE, 128), nn.SiLU(), nn.Linear(128, 2 * LATENT))

    def forward(self, x):
        mu, logvar = self.body(x.flatten(1)).chunk(2, dim=1)
        return mu, logvar.clamp(-8.0, 8.0)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(LATENT, 128), nn.SiLU(), nn.Linear(128, SIDE * SIDE))

    def forward(self, z):
        return torch.sigmoid(self.body(z)).view(-1, 1, SIDE, SIDE)


def make_glyphs(n):
    out = np.zeros((n, SIDE, SIDE), dtype=np.uint8)
    for i in range(n):
        r, c = rng.integers(1, SIDE - 4, size=2)
        out[i, r:r + 4, :] = 255 if rng.random() < 0.5 else 0
        out[i, :, c:c + 3] = 200
    return out


# ---------------------------------------------------------------- training
enc, dec = Encoder(), Decoder()
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=2e-3)
glyphs = torch.from_numpy(make_glyphs(512)).float().div(255).unsqueeze(1)
for step in range(150):
    x = glyphs[torch.randint(0, len(glyphs), (64,))]
    mu, logvar = enc(x)
    z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
    x_hat = dec(z)
    rec = F.binary_cross_entropy(x_hat, x, reduction="none").flatten(1).sum(1).mean()
    kl = (-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)).mean()
    loss = rec + kl
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step} rec {rec.item():.2f} kl {kl.item():.2f}")

# ---------------------------------------------------------------- export (bf16 halves the file)
workdir = tempfile.mkdtemp()
ckpt = os.path.join(workdir, "decoder.bf16.safetensors")
save_file({k: v.detach().to(torch.bfloat16).contiguous() for k, v in dec.state_dict().items()}, ckpt)
print("exported", ckpt, os.path.getsize(ckpt), "bytes")

# ---------------------------------------------------------------- sampling
with torch.device("meta"):
    sampler = Decoder()  # no random init, no memory until weights are assigned
sampler.load_state_dict(load_file(ckpt), assign=True)
sampler.eval()

with torch.no_grad():
    z = torch.randn(16, LATENT)
    imgs = sampler(z)
grid = (imgs.view(4, 4, SIDE, SIDE).permute(0, 2, 1, 3).reshape(4 * SIDE, 4 * SIDE) * 255).round()
out_path = os.path.join(workdir, "samples.npy")
np.save(out_path, grid.to(torch.uint8).numpy())
print("saved", out_path)
