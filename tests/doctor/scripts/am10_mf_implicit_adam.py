import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(10)

N_USERS, N_ITEMS, DIM = 3000, 8000, 32


def load_interactions(n=60000):
    df = pd.DataFrame({
        "user": rng.integers(0, N_USERS, n),
        "item": np.minimum(rng.zipf(1.4, n), N_ITEMS) - 1,
        "ts": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 90 * 86400, n), unit="s"),
    })
    df = df.drop_duplicates(["user", "item"]).sort_values("ts")
    cutoff = df["ts"].quantile(0.9)
    return df[df["ts"] <= cutoff], df[df["ts"] > cutoff]


class MatrixFactorization(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(N_USERS, DIM)
        self.item = nn.Embedding(N_ITEMS, DIM)
        self.item_bias = nn.Embedding(N_ITEMS, 1)
        nn.init.normal_(self.user.weight, std=0.1)
        nn.init.normal_(self.item.weight, std=0.1)
        nn.init.zeros_(self.item_bias.weight)

    def forward(self, u, i):
        return (self.user(u) * self.item(i)).sum(-1) + self.item_bias(i).squeeze(-1)


train_df, test_df = load_interactions()
u_all = torch.tensor(train_df["user"].to_numpy())
i_all = torch.tensor(train_df["item"].to_numpy())
print(f"{len(train_df)} train / {len(test_df)} test interactions")

model = MatrixFactorization().half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(3):
    perm = torch.randperm(len(u_all))
    total, n = 0.0, 0
    for s in range(0, len(perm), 2048):
        b = perm[s:s + 2048]
        u, pos = u_all[b], i_all[b]
        neg = torch.randint(0, N_ITEMS, pos.shape)
        logits = torch.cat([model(u, pos), model(u, neg)])
        target = torch.cat([torch.ones_like(logits[:len(b)]), torch.zeros_like(logits[len(b):])])
        loss = F.binary_cross_entropy_with_logits(logits.float(), target.float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        n += 1
    print(f"epoch {epoch} bce {total / n:.4f}")

with torch.no_grad():
    users = torch.tensor(test_df["user"].unique()[:500])
    scores = model.user(users).float() @ model.item.weight.float().T + model.item_bias.weight.float().T
    top = scores.topk(20, dim=-1).indices
    truth = test_df.groupby("user")["item"].apply(set)
    hits = [len(truth[int(u)] & set(t.tolist())) / min(20, len(truth[int(u)])) for u, t in zip(users, top)]
    print(f"recall@20 {np.mean(hits):.4f}  mean score {scores.mean().item():.4f}")
