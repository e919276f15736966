import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rng = np.random.default_rng(16)

N_ITEMS, N_CATS, D = 2000, 40, 16


def build_features(n=16000):
    request = pd.Timestamp("2024-06-01") + pd.to_timedelta(rng.integers(0, 30 * 86400, n), unit="s")
    gap_hours = rng.gamma(1.2, 30.0, n) + 1.0
    df = pd.DataFrame({
        "item": rng.integers(0, N_ITEMS, n),
        "category": pd.Categorical(rng.integers(0, N_CATS, n)),
        "request_ts": request,
        "last_interaction_ts": request - pd.to_timedelta(gap_hours, unit="h"),
        "is_new_user": rng.random(n) < 0.1,
        "price": rng.lognormal(3.0, 0.8, n),
    })
    p = 1 / (1 + np.exp(-(1.5 - 0.6 * np.log(gap_hours) + 0.4 * df["is_new_user"])))
    df["click"] = rng.random(n) < p
    return df


def to_dataset(df, dtype):
    epoch = pd.Timestamp("1970-01-01")
    ts = np.column_stack([(df[c] - epoch) // pd.Timedelta(seconds=1) for c in ["request_ts", "last_interaction_ts"]])
    dense = np.column_stack([np.log1p(df["price"]), df["is_new_user"].astype(np.float64)])
    return TensorDataset(
        torch.tensor(df["item"].to_numpy()),
        torch.tensor(df["category"].cat.codes.to_numpy().astype(np.int64)),
        torch.tensor(ts, dtype=dtype),
        torch.tensor(dense, dtype=dtype),
        torch.tensor(df["click"].to_numpy(), dtype=torch.float32),
    )


class RecencyEncoder(nn.Module):
    def __init__(self, n_freq=8):
        super().__init__()
        self.freq = nn.Parameter(torch.linspace(0.1, 2.0, n_freq))
        self.proj = nn.Linear(2 * n_freq + 1, D)

    def forward(self, ts):
        hours = (ts[:, 0] - ts[:, 1]) / 3600.0
        log_gap = torch.log(hours)[:, None]
        ang = log_gap * self.freq
        return self.proj(torch.cat([log_gap, torch.sin(ang), torch.cos(ang)], -1))


class TimeAwareCTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.item = nn.Embedding(N_ITEMS, D)
        self.category = nn.Embedding(N_CATS, D)
        self.recency = RecencyEncoder()
        self.dense = nn.Linear(2, D)
        self.mlp = nn.Sequential(nn.Linear(4 * D, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, item, cat, ts, dense):
        x = torch.cat([self.item(item), self.category(cat), self.recency(ts), self.dense(dense)], -1)
        return self.mlp(x).squeeze(-1)


df = build_features()
print(df[["request_ts", "last_interaction_ts", "price", "click"]].head(3))
dtype = torch.bfloat16
model = TimeAwareCTR().to(dtype)
loader = DataLoader(to_dataset(df, dtype), batch_size=512, shuffle=True)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(3):
    total = 0.0
    for item, cat, ts, dense, y in loader:
        loss = F.binary_cross_entropy_with_logits(model(item, cat, ts, dense).float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(y)
    print(f"epoch {epoch} logloss {total / len(df):.4f}")
