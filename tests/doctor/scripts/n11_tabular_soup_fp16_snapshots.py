"""Tabular regressor (BatchNorm input normalisation + MLP). Snapshots of the last epochs are
exported as fp16 safetensors; a uniform "model soup" of the snapshots is then evaluated."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
rng = np.random.default_rng(0)


def make_housing(n):
    # raw, unscaled features as they come out of the database
    area = rng.normal(120, 35, n)            # m^2
    year = rng.integers(1950, 2020, n)       # construction year
    alt = rng.normal(21000, 40, n)           # site elevation reference, cm
    rooms = rng.integers(1, 7, n)
    dist = rng.gamma(2.0, 3.0, n)            # km to centre
    price = 2.0 * area + 1.5 * (year - 1950) + 0.01 * (alt - 21000) + 10 * rooms - 6 * dist
    price = (price - 300) / 100 + rng.normal(0, 0.1, n)
    x = np.stack([area, year, alt, rooms, dist], 1).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(price.astype(np.float32)).unsqueeze(1)


class Regressor(nn.Module):
    def __init__(self, n_feat=5):
        super().__init__()
        self.bn_in = nn.BatchNorm1d(n_feat)  # learns feature scaling from the raw inputs
        self.mlp = nn.Sequential(nn.Linear(n_feat, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.mlp(self.bn_in(x))


def export_fp16(model, path):
    sd = {k: (v.half() if v.is_floating_point() else v) for k, v in model.state_dict().items()}
    save_file(sd, path)


def soup(paths):
    avg = None
    for p in paths:
        sd = load_file(p)
        if avg is None:
            avg = {k: v.clone() for k, v in sd.items()}
        else:
            for k in avg:
                avg[k] += sd[k]
    for k in avg:
        if avg[k].is_floating_point():
            avg[k] /= len(paths)
    return avg


def main():
    xtr, ytr = make_housing(2048)
    xva, yva = make_housing(512)
    model = Regressor()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    n_epochs, keep_last = 8, 4

    with tempfile.TemporaryDirectory() as tmp:
        snapshots = []
        for ep in range(n_epochs):
            model.train()
            perm = torch.randperm(len(xtr))
            for i in range(0, len(xtr), 128):
                idx = perm[i : i + 128]
                loss = F.mse_loss(model(xtr[idx]), ytr[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
            model.eval()
            with torch.no_grad():
                val = F.mse_loss(model(xva), yva).item()
            print(f"epoch {ep} train {loss.item():.4f} val {val:.4f}")
            if ep >= n_epochs - keep_last:
                path = os.path.join(tmp, f"snap_{ep}.safetensors")
                export_fp16(model, path)
                snapshots.append(path)

        souped = Regressor()
        souped.load_state_dict(soup(snapshots))
        souped.eval()
        with torch.no_grad():
            pred = souped(xva)
        print(f"soup of {len(snapshots)} snapshots: val mse {F.mse_loss(pred, yva).item():.4f}")
        print("sample predictions:", pred[:4, 0].tolist())


if __name__ == "__main__":
    main()
