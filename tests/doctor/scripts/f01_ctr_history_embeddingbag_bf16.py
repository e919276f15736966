"""CTR model with a multi-hot click-history feature pooled by EmbeddingBag.

History items are weighted by recency (exponential decay) via per_sample_weights.
Model is kept in bfloat16 to halve the memory of the embedding tables.
"""
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_USERS, N_ITEMS, N_CATS = 500, 2000, 40
EMB = 16


def make_log(n):
    rows = []
    for _ in range(n):
        u = int(rng.integers(N_USERS))
        item = int(rng.integers(N_ITEMS))
        hist_len = int(rng.integers(1, 12))
        hist = rng.integers(N_ITEMS, size=hist_len).tolist()
        age_days = rng.exponential(5.0, size=hist_len).tolist()
        click = int(rng.random() < 0.2 + 0.3 * (item % 7 == u % 7))
        rows.append((u, item, item % N_CATS, hist, age_days, click))
    return rows


def collate(rows):
    users = torch.tensor([r[0] for r in rows])
    items = torch.tensor([r[1] for r in rows])
    cats = torch.tensor([r[2] for r in rows])
    flat, offsets, weights = [], [], []
    for r in rows:
        offsets.append(len(flat))
        flat.extend(r[3])
        weights.extend(math.exp(-a / 7.0) for a in r[4])
    return (users, items, cats, torch.tensor(flat), torch.tensor(offsets),
            torch.tensor(weights), torch.tensor([r[5] for r in rows]).float())


class HistoryCTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, EMB)
        self.item_emb = nn.Embedding(N_ITEMS, EMB)
        self.cat_emb = nn.Embedding(N_CATS, EMB)
        self.hist_bag = nn.EmbeddingBag(N_ITEMS, EMB, mode="sum")
        self.mlp = nn.Sequential(nn.Linear(4 * EMB, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, users, items, cats, hist, offsets, hist_w):
        h = self.hist_bag(hist, offsets, per_sample_weights=hist_w)
        z = torch.cat([self.user_emb(users), self.item_emb(items), self.cat_emb(cats), h], dim=-1)
        return self.mlp(z).squeeze(-1)


model = HistoryCTR().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

train = make_log(4096)
for epoch in range(2):
    perm = rng.permutation(len(train))
    total = 0.0
    for i in range(0, len(train), 256):
        batch = collate([train[j] for j in perm[i:i + 256]])
        *feats, y = batch
        logits = model(*feats)
        loss = F.binary_cross_entropy_with_logits(logits.float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total / (len(train) // 256):.4f}")
