import copy
import os
import tempfile

import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(3)

N_ITEMS, N_USERS, K = 3000, 800, 32


def interactions(n=20000):
    df = pd.DataFrame({
        "user": rng.integers(0, N_USERS, n),
        "item": rng.integers(0, N_ITEMS, n),
        "views_7d": rng.poisson(40, n).astype(np.float64),
        "dwell_sec": rng.gamma(3.0, 60.0, n),
        "price_cents": rng.gamma(2.0, 2500.0, n).round(),
    })
    df["label"] = ((df["dwell_sec"] > 150) & (rng.random(n) < 0.7)).astype(np.float32)
    return df


class FactorizationMachine(nn.Module):
    def __init__(self, n_users, n_items, n_num, k):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(1))
        self.w_user = nn.Embedding(n_users, 1)
        self.w_item = nn.Embedding(n_items, 1)
        self.w_num = nn.Linear(n_num, 1, bias=False)
        self.v_user = nn.Embedding(n_users, k)
        self.v_item = nn.Embedding(n_items, k)
        self.v_num = nn.Parameter(torch.randn(n_num, k) * 0.01)
        for e in (self.v_user, self.v_item):
            nn.init.normal_(e.weight, std=0.01)

    def forward(self, user, item, num):
        linear = self.bias + self.w_user(user).squeeze(-1) + self.w_item(item).squeeze(-1) + self.w_num(num).squeeze(-1)
        vx = torch.cat([self.v_user(user).unsqueeze(1), self.v_item(item).unsqueeze(1),
                        num.unsqueeze(-1) * self.v_num], dim=1)
        pair = 0.5 * (vx.sum(1).pow(2) - vx.pow(2).sum(1)).sum(-1)
        return linear + pair


df = interactions()
num_cols = ["views_7d", "dwell_sec", "price_cents"]
user = torch.tensor(df["user"].values)
item = torch.tensor(df["item"].values)
features = np.column_stack([np.log1p(df["views_7d"]), np.log1p(df["dwell_sec"]), df["price_cents"]])
num = torch.tensor(features, dtype=torch.float32)
y = torch.tensor(df["label"].values)

model = FactorizationMachine(N_USERS, N_ITEMS, len(num_cols), K)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(3):
    perm = torch.randperm(len(y))
    for s in range(0, len(y), 1024):
        b = perm[s:s + 1024]
        loss = loss_fn(model(user[b], item[b], num[b]), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} train loss {loss.item():.4f}")

serving = copy.deepcopy(model).half().eval()
example = (user[:256], item[:256], num[:256].half())
with tempfile.TemporaryDirectory() as d:
    traced = torch.jit.trace(serving, example)
    path = os.path.join(d, "fm_fp16.pt")
    traced.save(path)
    loaded = torch.jit.load(path)
    with torch.no_grad():
        ref = model(user[:256], item[:256], num[:256])
        out = loaded(*example).float()
    print("exported", os.path.getsize(path), "bytes")
    print("parity max abs diff", (out - ref).abs().max().item())
    print("served logloss", loss_fn(out, y[:256]).item(), "reference", loss_fn(ref, y[:256]).item())
