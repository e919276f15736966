import numpy as np
import pandas as pd
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(1)

FIELDS = ["user_id", "item_id", "category", "brand", "device", "hour"]
BUCKETS = 2048
EMB = 8


def build_events(n=6000):
    df = pd.DataFrame({
        "user_id": rng.integers(0, 50_000, n),
        "item_id": rng.integers(0, 200_000, n),
        "category": rng.choice(["shoes", "books", "toys", "food", "garden"], n),
        "brand": rng.choice([None, "acme", "globex", "initech", "umbrella"], n, p=[0.2, 0.2, 0.2, 0.2, 0.2]),
        "device": rng.choice(["ios", "android", "web"], n),
        "ts": pd.Timestamp("2024-03-01") + pd.to_timedelta(rng.integers(0, 86400 * 14, n), unit="s"),
        "price": rng.gamma(2.0, 15.0, n),
    })
    df["hour"] = df["ts"].dt.hour
    df["clicked"] = (rng.random(n) < 0.2)
    return df


def hash_fields(df):
    out = pd.DataFrame(index=df.index)
    for i, f in enumerate(FIELDS):
        col = df[f]
        if not pd.api.types.is_numeric_dtype(col):
            col = col.map({v: k for k, v in enumerate(col.dropna().unique())})
        out[f] = (col * 31 + i * 7919) % BUCKETS
    return out


class DeepFM(nn.Module):
    def __init__(self, n_fields, n_dense):
        super().__init__()
        self.first_order = nn.EmbeddingBag(BUCKETS * n_fields, 1, mode="sum")
        self.field_emb = nn.Embedding(BUCKETS * n_fields, EMB)
        self.dense_proj = nn.Linear(n_dense, EMB)
        self.register_buffer("offsets", torch.arange(n_fields) * BUCKETS)
        self.deep = nn.Sequential(nn.Linear((n_fields + 1) * EMB, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, ids, dense):
        ids = ids + self.offsets
        first = self.first_order(ids).squeeze(1)
        v = self.field_emb(ids)
        v = torch.cat([v, self.dense_proj(dense).unsqueeze(1)], dim=1)
        fm = 0.5 * (v.sum(1).pow(2) - v.pow(2).sum(1)).sum(1)
        deep = self.deep(v.flatten(1)).squeeze(1)
        return first + fm + deep


events = build_events()
hashed = hash_fields(events)
ids_all = torch.tensor(hashed[FIELDS].values)
dense_all = torch.tensor(np.log1p(events[["price"]].values), dtype=torch.float32)
y_all = torch.tensor(events["clicked"].values, dtype=torch.float32)

model = DeepFM(len(FIELDS), 1)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = nn.BCEWithLogitsLoss()

perm = torch.randperm(len(y_all))
for epoch in range(3):
    for start in range(0, len(perm), 512):
        idx = perm[start:start + 512]
        logit = model(ids_all[idx], dense_all[idx])
        loss = loss_fn(logit, y_all[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

with torch.no_grad():
    p = torch.sigmoid(model(ids_all[:1000], dense_all[:1000]))
    print("mean predicted ctr", p.mean().item(), "observed", y_all[:1000].mean().item())
