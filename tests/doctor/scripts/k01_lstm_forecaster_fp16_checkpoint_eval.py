"""Train a small LSTM forecaster on a synthetic daily-load series, ship the checkpoint
as fp16 safetensors (half the size), then reload it for a backtest evaluation."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
np.random.seed(0)

CONTEXT, HORIZON = 48, 12


def make_series(n=2000):
    t = np.arange(n)
    daily = np.sin(2 * np.pi * t / 24)
    weekly = 0.5 * np.sin(2 * np.pi * t / (24 * 7))
    noise = 0.1 * np.random.randn(n)
    return (10 + 3 * daily + weekly + noise).astype(np.float32)


def windows(series, context, horizon):
    xs, ys = [], []
    for i in range(len(series) - context - horizon):
        xs.append(series[i : i + context])
        ys.append(series[i + context : i + context + horizon])
    return np.stack(xs)[..., None], np.stack(ys)


class LSTMForecaster(nn.Module):
    def __init__(self, hidden=32, horizon=HORIZON):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


series = make_series()
mean, std = series[:1500].mean(), series[:1500].std()
scaled = (series - mean) / std
X, Y = windows(scaled, CONTEXT, HORIZON)
X_train, Y_train = torch.from_numpy(X[:1400]), torch.from_numpy(Y[:1400])
X_test, Y_test = torch.from_numpy(X[1400:]), torch.from_numpy(Y[1400:])

model = LSTMForecaster()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = nn.MSELoss()

for epoch in range(2):
    perm = torch.randperm(len(X_train))
    for i in range(0, len(perm), 64):
        idx = perm[i : i + 64]
        loss = loss_fn(model(X_train[idx]), Y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} train mse {loss.item():.4f}")

with tempfile.TemporaryDirectory() as tmp:
    ckpt = os.path.join(tmp, "lstm_forecaster.fp16.safetensors")
    # store in half precision to keep the artifact small
    save_file({k: v.detach().half().contiguous() for k, v in model.state_dict().items()}, ckpt)
    print("saved", os.path.getsize(ckpt), "bytes")

    # --- evaluation job: fresh process-style reload ---
    eval_model = LSTMForecaster()
    state = load_file(ckpt)
    eval_model.load_state_dict(state, assign=True)  # avoid an extra copy of the weights
    eval_model.eval()

    maes = []
    with torch.no_grad():
        for i in range(0, len(X_test), 128):
            pred = eval_model(X_test[i : i + 128])
            maes.append((pred - Y_test[i : i + 128]).abs().mean().item())
    print("backtest MAE (scaled):", float(np.mean(maes)))
