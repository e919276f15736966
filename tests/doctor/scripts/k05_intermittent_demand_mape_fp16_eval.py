"""Intermittent retail demand (many zero days): train an MLP forecaster in fp32, then run the
batched backtest over all SKUs in half precision and report MAPE / sMAPE / quantile loss."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_SKU, T, CONTEXT, HORIZON = 64, 200, 28, 7

# Croston-style intermittent demand: Bernoulli occurrence x Poisson size
occurrence = rng.random((N_SKU, T)) < rng.uniform(0.2, 0.7, (N_SKU, 1))
sizes = rng.poisson(rng.uniform(2, 8, (N_SKU, 1)), (N_SKU, T)) + 1
demand = (occurrence * sizes).astype(np.float64)

scale = demand[:, :150].mean(axis=1, keepdims=True) + 1.0
scaled = demand / scale


def windows(arr, start, stop):
    xs, ys = [], []
    for s in range(start, stop - CONTEXT - HORIZON + 1, 3):
        xs.append(arr[:, s : s + CONTEXT])
        ys.append(arr[:, s + CONTEXT : s + CONTEXT + HORIZON])
    return np.concatenate(xs), np.concatenate(ys)


Xtr, Ytr = windows(scaled, 0, 150)
Xtr, Ytr = torch.tensor(Xtr, dtype=torch.float32), torch.tensor(Ytr, dtype=torch.float32)

model = nn.Sequential(nn.Linear(CONTEXT, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, HORIZON))
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(30):
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 128):
        idx = perm[i : i + 128]
        loss = nn.functional.l1_loss(model(Xtr[idx]), Ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
print(f"final train L1 {loss.item():.4f}")


def mape(y, yhat, eps=1e-8):
    return ((y - yhat).abs() / (y.abs() + eps)).mean()


def smape(y, yhat, eps=1e-8):
    return (2 * (y - yhat).abs() / (y.abs() + yhat.abs() + eps)).mean()


def quantile_loss(y, yhat, q=0.5):
    d = y - yhat
    return torch.maximum(q * d, (q - 1) * d).mean()


# ---- backtest: batched over all SKUs in half precision ----
model = model.half().eval()
scale_t = torch.tensor(scale)
ctx = torch.tensor(scaled[:, 150 - CONTEXT : 150]).half()
with torch.no_grad():
    pred = model(ctx).clamp_min(0)  # demand cannot be negative
pred_units = pred * scale_t.half()
true_units = torch.tensor(demand[:, 150 : 150 + HORIZON]).to(pred.dtype)

print(f"zero-demand days in the horizon: {(true_units == 0).float().mean().item():.0%}")
print(f"MAPE  {mape(true_units, pred_units).item() * 100:.2f}%")
print(f"sMAPE {smape(true_units, pred_units).item() * 100:.2f}%")
print(f"QL50  {quantile_loss(true_units, pred_units).item():.3f}")
