"""Multi-step GRU forecaster for a multivariate (float64 pandas) weather-like frame,
trained with CPU bf16 autocast; evaluated with MAPE / sMAPE / pinball loss."""
import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)

CONTEXT, HORIZON = 36, 6
QUANTILES = [0.1, 0.5, 0.9]

n = 1600
idx = pd.date_range("2023-01-01", periods=n, freq="h")
hour = idx.hour.to_numpy()
df = pd.DataFrame(
    {
        "temp": 15 + 8 * np.sin(2 * np.pi * hour / 24) + rng.normal(0, 1, n),
        "humidity": 60 + 10 * np.cos(2 * np.pi * hour / 24) + rng.normal(0, 2, n),
        "load": 500 + 120 * np.sin(2 * np.pi * hour / 24 + 0.5) + rng.normal(0, 10, n),
    },
    index=idx,
)  # float64 columns

train_df = df.iloc[:1200]
mu, sigma = train_df.mean(), train_df.std()
scaled = ((df - mu) / sigma).to_numpy(dtype=np.float32)
target_col = list(df.columns).index("load")

X = np.lib.stride_tricks.sliding_window_view(scaled[:-HORIZON], CONTEXT, axis=0)  # (N, F, C)
X = np.ascontiguousarray(X.transpose(0, 2, 1))
Y = np.lib.stride_tricks.sliding_window_view(scaled[CONTEXT:, target_col], HORIZON)
Y = np.ascontiguousarray(Y[: len(X)])
X_t, Y_t = torch.from_numpy(X).float(), torch.from_numpy(Y).float()
split = 1100
train_ds = torch.utils.data.TensorDataset(X_t[:split], Y_t[:split])
test_X, test_Y = X_t[split:], Y_t[split:]


class GRUQuantileForecaster(nn.Module):
    def __init__(self, n_features, hidden=48):
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, HORIZON * len(QUANTILES))

    def forward(self, x):
        _, h = self.gru(x)
        return self.proj(h[-1]).view(-1, HORIZON, len(QUANTILES))


def pinball(pred, y, qs):
    q = torch.tensor(qs, dtype=pred.dtype).view(1, 1, -1)
    diff = y.unsqueeze(-1) - pred
    return torch.maximum(q * diff, (q - 1) * diff).mean()


model = GRUQuantileForecaster(X.shape[-1])
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
loader = torch.utils.data.DataLoader(train_ds, batch_size=64, shuffle=True)

for epoch in range(3):
    for xb, yb in loader:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = model(xb)
        loss = pinball(pred.float(), yb, QUANTILES)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    print(f"epoch {epoch} pinball {loss.item():.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    pred = model(test_X)
pred = pred.float()
median = pred[..., 1]
# back to original units (float64 from pandas)
s, m = float(sigma["load"]), float(mu["load"])
y_true = test_Y.double() * s + m
y_hat = median.double() * s + m
mape = ((y_true - y_hat).abs() / y_true.abs().clamp_min(1e-8)).mean().item() * 100
smape = (2 * (y_true - y_hat).abs() / (y_true.abs() + y_hat.abs() + 1e-8)).mean().item() * 100
ql = pinball(pred, test_Y, QUANTILES).item()
coverage = ((test_Y >= pred[..., 0]) & (test_Y <= pred[..., 2])).float().mean().item()
print(f"test MAPE {mape:.2f}%  sMAPE {smape:.2f}%  pinball {ql:.4f}  80% coverage {coverage:.2f}")
assert np.isfinite([mape, smape, ql]).all()
