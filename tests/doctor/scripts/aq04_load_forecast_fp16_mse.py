import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(1)

LOOKBACK, HORIZON = 168, 24
hours = np.arange(24 * 120)
load_kw = (
    650
    + 180 * np.sin(2 * np.pi * (hours - 7) / 24)
    + 60 * np.sin(2 * np.pi * hours / (24 * 7))
    + rng.normal(0, 25, hours.size)
)


def sliding_windows(series, lookback, horizon):
    win = np.lib.stride_tricks.sliding_window_view(series, lookback + horizon)[::3]
    return win[:, :lookback].copy(), win[:, lookback:].copy()


X, Y = sliding_windows(load_kw, LOOKBACK, HORIZON)
split = int(0.8 * len(X))
mean, std = X[:split].mean(), X[:split].std()


class LoadForecaster(nn.Module):
    def __init__(self, mean, std, hidden=256):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.tensor(std, dtype=torch.float32))
        self.net = nn.Sequential(
            nn.Linear(LOOKBACK, hidden), nn.GELU(),
            nn.Linear(hidden, hidden), nn.GELU(),
            nn.Linear(hidden, HORIZON),
        )

    def forward(self, x_kw):
        z = (x_kw - self.mean) / self.std
        return self.net(z) * self.std + self.mean


train = TensorDataset(torch.tensor(X[:split], dtype=torch.float16), torch.tensor(Y[:split], dtype=torch.float16))
test = TensorDataset(torch.tensor(X[split:], dtype=torch.float16), torch.tensor(Y[split:], dtype=torch.float16))
loader = DataLoader(train, batch_size=64, shuffle=True)

model = LoadForecaster(mean, std).half()
opt = torch.optim.SGD(model.parameters(), lr=4e-7, momentum=0.9)

for epoch in range(4):
    running = []
    for xb, yb in loader:
        pred = model(xb)
        loss = nn.functional.mse_loss(pred, yb, reduction="sum") / len(xb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running.append(loss.item())
    print(f"epoch {epoch} train sse/window {np.mean(running):.2f}")

model.eval()
with torch.no_grad():
    xb, yb = test.tensors
    pred = model(xb)
    mse = nn.functional.mse_loss(pred, yb, reduction="sum") / len(xb)
    mae = (pred - yb).abs().float().mean()
print(f"test sse/window {mse.item():.2f} mae {mae.item():.2f} kW")
