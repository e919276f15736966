import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(14)
LAGS, HORIZON = 48, 12
CKPT_DIR = tempfile.mkdtemp(prefix="forecast_ckpt_")


def load_demand_series(n=5000):
    t = np.arange(n)
    daily = 40 * np.sin(2 * np.pi * t / 24)
    weekly = 15 * np.sin(2 * np.pi * t / (24 * 7))
    trend = 0.01 * t
    return 500 + daily + weekly + trend + rng.normal(0, 6, n)


class Windows(Dataset):
    def __init__(self, series):
        self.series = series.astype(np.float32)

    def __len__(self):
        return len(self.series) - LAGS - HORIZON

    def __getitem__(self, i):
        past = self.series[i:i + LAGS]
        future = self.series[i + LAGS:i + LAGS + HORIZON]
        return torch.from_numpy(past), torch.from_numpy(future)


class Forecaster(nn.Module):
    def __init__(self, loc, scale, hidden=128):
        super().__init__()
        self.register_buffer("loc", torch.as_tensor(loc, dtype=torch.float32), persistent=False)
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32), persistent=False)
        self.body = nn.Sequential(nn.Linear(LAGS, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU())
        self.head = nn.Linear(hidden, HORIZON)

    def forward(self, past):
        z = (past - self.loc) / self.scale
        return self.head(self.body(z)) * self.scale + self.loc


series = load_demand_series()
train, test = series[:4000], series[4000 - LAGS:]
loc, scale = float(train.mean()), float(train.std())

model = Forecaster(loc, scale)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
dl = DataLoader(Windows(train), batch_size=128, shuffle=True)
for epoch in range(5):
    for past, future in dl:
        loss = F.mse_loss(model(past), future)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} train_mse {loss.item():.3f}")

ckpt_path = os.path.join(CKPT_DIR, "forecaster.pt")
torch.save({"state_dict": model.state_dict(), "loc": loc, "scale": scale}, ckpt_path)
del model

# serving: rebuild the forecaster and load the trained weights
ckpt = torch.load(ckpt_path, map_location="cpu")
with torch.device("meta"):
    served = Forecaster(ckpt["loc"], ckpt["scale"])
served.load_state_dict(ckpt["state_dict"], assign=True)
served.eval()

test_dl = DataLoader(Windows(test), batch_size=256)
abs_err, naive_err = [], []
with torch.no_grad():
    for past, future in test_dl:
        pred = served(past)
        abs_err.append((pred - future).abs().mean(1))
        naive_err.append((past[:, -24:-12] - future).abs().mean(1))
mae, naive = torch.cat(abs_err).mean().item(), torch.cat(naive_err).mean().item()
print(f"test MAE {mae:.3f} (seasonal naive {naive:.3f}, MASE {mae / naive:.3f})")
