"""Factorization machine over categorical + numeric fields, trained in fp16.

Numeric fields get their own embedding vector scaled by the raw value (the usual
FM treatment of continuous features). Pairwise term uses the O(kn) sum-square trick.
"""
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(1)

n = 6000
df = pd.DataFrame({
    "user_id": rng.integers(0, 800, n),
    "item_id": rng.integers(0, 1500, n),
    "brand": rng.choice(["acme", "globex", "initech", "umbrella", "hooli"], n),
    "device": rng.choice(["ios", "android", "web"], n),
    "price": np.round(rng.lognormal(4.5, 1.1, n), 2),
    "n_views_7d": rng.poisson(30, n).astype(float),
})
df["label"] = ((df.price < 90) & (df.device != "web")).astype(int) ^ (rng.random(n) < 0.1)

cat_cols = ["user_id", "item_id", "brand", "device"]
num_cols = ["price", "n_views_7d"]
offsets = {}
start = 0
for c in cat_cols:
    df[c] = df[c].astype("category").cat.codes.astype(np.int64)
    offsets[c] = start
    start += int(df[c].max()) + 1
n_cat_feats = start

cat_idx = torch.tensor(np.stack([df[c].values + offsets[c] for c in cat_cols], 1), dtype=torch.long)
num_val = torch.tensor(df[num_cols].values, dtype=torch.float32)
labels = torch.tensor(df["label"].values, dtype=torch.float32)


class FM(nn.Module):
    def __init__(self, n_feats, n_num, k=8):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(1))
        self.w_cat = nn.Embedding(n_feats, 1)
        self.v_cat = nn.Embedding(n_feats, k)
        self.w_num = nn.Parameter(torch.zeros(n_num))
        self.v_num = nn.Parameter(torch.randn(n_num, k))

    def forward(self, cat_idx, num_val):
        num_val = num_val.to(self.v_num.dtype)
        linear = self.bias + self.w_cat(cat_idx).sum(dim=(1, 2)) + (num_val * self.w_num).sum(1)
        v = torch.cat([self.v_cat(cat_idx), num_val.unsqueeze(-1) * self.v_num], dim=1)  # (B, F, k)
        square_of_sum = v.sum(dim=1).pow(2)
        sum_of_square = v.pow(2).sum(dim=1)
        pairwise = 0.5 * (square_of_sum - sum_of_square).sum(dim=1)
        return linear + pairwise


model = FM(n_cat_feats, len(num_cols)).half()
opt = torch.optim.SGD(model.parameters(), lr=1e-2)

for epoch in range(3):
    perm = torch.randperm(n)
    losses = []
    for i in range(0, n, 512):
        idx = perm[i:i + 512]
        logits = model(cat_idx[idx], num_val[idx])
        loss = F.binary_cross_entropy_with_logits(logits.float(), labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(f"epoch {epoch}: train logloss {np.mean(losses):.4f}")

with torch.no_grad():
    p = torch.sigmoid(model(cat_idx[:1000], num_val[:1000]).float()).numpy()
print("mean predicted CTR on first 1000 rows:", float(np.mean(p)))
