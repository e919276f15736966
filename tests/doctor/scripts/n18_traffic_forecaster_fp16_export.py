"""Hourly page-view forecaster (MLP on calendar + lag features, log1p target).
Trained in fp32, exported as fp16 safetensors for the CPU serving path, which reloads it
and produces next-day hourly forecasts and each hour's share of daily traffic."""
import math
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_SITES, N_DAYS = 6, 60


def simulate():
    site_scale = rng.uniform(8_000, 60_000, N_SITES)
    rows, ys = [], []
    for s in range(N_SITES):
        prev = None
        for d in range(N_DAYS):
            dow = d % 7
            promo = rng.random() < 0.15
            for h in range(24):
                diurnal = 0.35 + 1.4 * math.exp(-((h - 20) ** 2) / 18) + 0.6 * math.exp(-((h - 12) ** 2) / 8)
                views = site_scale[s] * diurnal * (1.25 if dow >= 5 else 1.0) * (1.6 if promo else 1.0)
                views *= rng.lognormal(0, 0.08)
                lag = prev[h] if prev is not None else views
                feat = [math.sin(2 * math.pi * h / 24), math.cos(2 * math.pi * h / 24),
                        math.sin(2 * math.pi * dow / 7), math.cos(2 * math.pi * dow / 7),
                        float(promo), math.log1p(lag) / 10]
                rows.append(feat)
                ys.append(views)
            prev = [ys[-24 + h] for h in range(24)]
    x = torch.tensor(rows, dtype=torch.float32)
    y = torch.tensor(ys, dtype=torch.float32)
    return x, y


class Forecaster(nn.Module):
    def __init__(self, n_feat=6):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_feat, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU())
        self.head = nn.Linear(64, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)  # log1p(views)

    def predict_views(self, x):
        return torch.expm1(self(x))


def main():
    x, y = simulate()
    target = torch.log1p(y)
    n_train = int(0.85 * len(x))
    model = Forecaster()
    nn.init.constant_(model.head.bias, target[:n_train].mean().item())
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for ep in range(25):
        perm = torch.randperm(n_train)
        for i in range(0, n_train, 256):
            idx = perm[i : i + 256]
            loss = F.mse_loss(model(x[idx]), target[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if ep % 5 == 0:
            print(f"epoch {ep} log-mse {loss.item():.4f}")

    with torch.no_grad():
        pv = model.predict_views(x[n_train:])
        mape = ((pv - y[n_train:]).abs() / y[n_train:]).mean().item()
    print(f"fp32 holdout MAPE {100 * mape:.1f}%")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "forecaster.fp16.safetensors")
        save_file({k: v.half() for k, v in model.state_dict().items()}, path)

        # ---- serving path ----
        served = Forecaster().half()
        served.load_state_dict(load_file(path))
        served.eval()
        with torch.no_grad():
            xs = x[n_train:].half()
            views = served.predict_views(xs).float()
            mape = ((views - y[n_train:]).abs() / y[n_train:]).mean().item()
            day = views[: 24 * (len(views) // 24)].view(-1, 24)
            share = day / day.sum(1, keepdim=True)
        print(f"served holdout MAPE {100 * mape:.1f}%")
        print("peak-hour share of daily traffic (first 3 days):", share.max(1).values[:3].tolist())


if __name__ == "__main__":
    main()
