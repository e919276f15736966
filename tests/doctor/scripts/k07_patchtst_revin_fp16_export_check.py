"""PatchTST-style channel-independent patch transformer with RevIN for multi-feeder electricity
load (raw kW). Trained in fp32, then exported as an fp16 model and validated on the holdout."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
CONTEXT, HORIZON, PATCH, STRIDE, N_FEEDERS = 96, 24, 16, 8, 3


class RevIN(nn.Module):
    def __init__(self, n_channels, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(n_channels))
        self.beta = nn.Parameter(torch.zeros(n_channels))

    def normalize(self, x):  # x: (B, T, C)
        self.mean = x.mean(dim=1, keepdim=True).detach()
        var = ((x - self.mean) ** 2).mean(dim=1, keepdim=True)
        self.std = torch.sqrt(var + self.eps).detach()
        return (x - self.mean) / self.std * self.gamma + self.beta

    def denormalize(self, y):
        return (y - self.beta) / (self.gamma + self.eps * self.eps) * self.std + self.mean


class PatchTSTLite(nn.Module):
    def __init__(self, c, d=32):
        super().__init__()
        self.revin = RevIN(c)
        self.n_patches = (CONTEXT - PATCH) // STRIDE + 1
        self.embed = nn.Linear(PATCH, d)
        self.pos = nn.Parameter(torch.randn(1, self.n_patches, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d * self.n_patches, HORIZON)

    def forward(self, x):  # (B, T, C)
        B, T, C = x.shape
        x = self.revin.normalize(x)
        p = x.permute(0, 2, 1).reshape(B * C, T).unfold(-1, PATCH, STRIDE)  # (B*C, N, P)
        h = self.encoder(self.embed(p) + self.pos)
        y = self.head(h.flatten(1)).view(B, C, HORIZON).permute(0, 2, 1)
        return self.revin.denormalize(y)


t = np.arange(4000)
base = np.array([3200.0, 4100.0, 2600.0])
amp = np.array([900.0, 1200.0, 700.0])
load = base + amp * np.sin(2 * np.pi * t[:, None] / 96 + np.array([0, 0.7, 1.4])) + rng.normal(0, 60, (4000, 3))
load = load.astype(np.float32)  # kW, raw scale: RevIN handles normalisation

starts = np.arange(0, 3600 - CONTEXT - HORIZON, 4)
X = torch.from_numpy(np.stack([load[s : s + CONTEXT] for s in starts]))
Y = torch.from_numpy(np.stack([load[s + CONTEXT : s + CONTEXT + HORIZON] for s in starts]))

model = PatchTSTLite(N_FEEDERS)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), 64):
        b = perm[i : i + 64]
        pred = model(X[b])
        loss = nn.functional.l1_loss(pred, Y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} train MAE {loss.item():.1f} kW")

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "patchtst_fp16.safetensors")
    save_file({k: v.half().contiguous() for k, v in model.state_dict().items()}, path)
    deployed = PatchTSTLite(N_FEEDERS).half().eval()
    deployed.load_state_dict(load_file(path))

    hs = np.arange(3600, 4000 - CONTEXT - HORIZON, 12)
    Xv = torch.from_numpy(np.stack([load[s : s + CONTEXT] for s in hs])).half()
    Yv = torch.from_numpy(np.stack([load[s + CONTEXT : s + CONTEXT + HORIZON] for s in hs]))
    with torch.no_grad():
        ref = model.eval()(Xv.float())
        out = deployed(Xv)
    print(f"fp32 holdout MAE {(ref - Yv).abs().mean().item():.1f} kW")
    print(f"fp16 holdout MAE {(out.float() - Yv).abs().mean().item():.1f} kW")
    print(f"max |fp16 - fp32| {(out.float() - ref).abs().max().item():.2f} kW")
