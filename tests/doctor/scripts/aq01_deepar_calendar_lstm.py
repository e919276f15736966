import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_SERIES, T = 16, 24 * 14
CONTEXT, HORIZON = 72, 24

index = pd.date_range("2024-03-01", periods=T, freq="h")
hours = np.arange(T)
values = np.stack([
    10 + 3 * np.sin(2 * np.pi * hours / 24 + rng.uniform(0, 6)) + rng.normal(0, 0.5, T)
    for _ in range(N_SERIES)
]).astype(np.float32)


def calendar_features(idx):
    ns = idx.asi8
    hour = idx.hour.to_numpy()
    dow = idx.day_of_week.to_numpy()
    feats = np.stack([
        np.sin(2 * np.pi * hour / 24), np.cos(2 * np.pi * hour / 24),
        np.sin(2 * np.pi * dow / 7), np.cos(2 * np.pi * dow / 7),
        (ns - ns[0]) / (ns[-1] - ns[0]) - 0.5,
    ], axis=-1)
    return feats


class WindowDataset(Dataset):
    def __init__(self, values, feats):
        self.values = values
        self.feats = feats
        self.starts = np.arange(0, values.shape[1] - CONTEXT - HORIZON, 6)

    def __len__(self):
        return len(self.starts) * len(self.values)

    def __getitem__(self, i):
        s = self.starts[i % len(self.starts)]
        k = i // len(self.starts)
        y = self.values[k, s:s + CONTEXT + HORIZON]
        cov = self.feats[s:s + CONTEXT + HORIZON]
        return torch.from_numpy(y), torch.from_numpy(cov)


class DeepAR(nn.Module):
    def __init__(self, n_cov, hidden=40):
        super().__init__()
        self.rnn = nn.LSTM(1 + n_cov, hidden, num_layers=2, batch_first=True)
        self.mu = nn.Linear(hidden, 1)
        self.sigma = nn.Linear(hidden, 1)

    def forward(self, y_lag, cov):
        scale = y_lag[:, :CONTEXT].abs().mean(1, keepdim=True) + 1.0
        inp = torch.cat([(y_lag / scale).unsqueeze(-1), cov], dim=-1)
        h, _ = self.rnn(inp)
        mu = self.mu(h).squeeze(-1) * scale
        sigma = nn.functional.softplus(self.sigma(h)).squeeze(-1) * scale + 1e-3
        return mu, sigma


feats = calendar_features(index)
ds = WindowDataset(values, feats)
loader = DataLoader(ds, batch_size=32, shuffle=True)
model = DeepAR(n_cov=feats.shape[1])
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(3):
    total = 0.0
    for y, cov in loader:
        y_lag = torch.cat([y[:, :1], y[:, :-1]], dim=1)
        mu, sigma = model(y_lag, cov)
        nll = -torch.distributions.Normal(mu, sigma).log_prob(y).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
        total += nll.item()
    print(f"epoch {epoch} nll {total / len(loader):.4f}")
