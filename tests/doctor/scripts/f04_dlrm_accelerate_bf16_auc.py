"""DLRM-style CTR model (dense bottom MLP + sparse embedding tables + dot interaction),
trained with accelerate in bf16 mixed precision; AUC computed in NumPy."""
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import set_seed

set_seed(0)
rng = np.random.default_rng(4)

n = 8000
df = pd.DataFrame({
    "dwell_time": rng.exponential(40.0, n),
    "price": rng.lognormal(3.0, 1.0, n),
    "user_age": rng.normal(35, 10, n).round(),
    "n_sessions": rng.poisson(4, n).astype(float),
    "site": rng.choice(["a.com", "b.net", "c.org", "d.io"], n),
    "country": rng.choice(["us", "de", "fr", "br", "in", "jp"], n),
    "ad_id": rng.integers(0, 3000, n),
})
df.loc[rng.random(n) < 0.15, "user_age"] = np.nan
tags = [rng.integers(0, 500, rng.integers(1, 6)) for _ in range(n)]
logit = 0.02 * (df.dwell_time - 40) - 0.3 * (df.site == "c.org") + 0.5 * (df.ad_id % 5 == 0)
df["clicked"] = (rng.random(n) < 1 / (1 + np.exp(-logit.values))).astype(np.float32)

dense_cols = ["dwell_time", "price", "user_age", "n_sessions"]
dense = df[dense_cols].copy()
dense["user_age"] = dense["user_age"].fillna(dense["user_age"].median())
dense[["dwell_time", "price", "n_sessions"]] = np.log1p(dense[["dwell_time", "price", "n_sessions"]])
dense = dense.to_numpy()
dense = ((dense - dense.mean(0)) / (dense.std(0) + 1e-6)).astype(np.float32)

sparse_cols = ["site", "country", "ad_id"]
sparse = np.stack([df[c].astype("category").cat.codes.to_numpy().astype(np.int64) for c in sparse_cols], 1)
cards = [int(sparse[:, j].max()) + 1 for j in range(len(sparse_cols))]


class DLRM(nn.Module):
    def __init__(self, n_dense, cards, n_tags=500, d=16):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(n_dense, 64), nn.ReLU(), nn.Linear(64, d), nn.ReLU())
        self.tables = nn.ModuleList(nn.Embedding(c, d) for c in cards)
        self.tag_bag = nn.EmbeddingBag(n_tags, d, mode="sum")
        n_vec = 2 + len(cards)
        self.top = nn.Sequential(nn.Linear(d + n_vec * (n_vec - 1) // 2, 64), nn.ReLU(), nn.Linear(64, 1))
        for t in self.tables:
            nn.init.normal_(t.weight, std=0.05)
        nn.init.normal_(self.tag_bag.weight, std=0.05)

    def forward(self, dense, sparse, tags, tag_offsets, tag_w):
        x = self.bottom(dense)
        vecs = [x] + [t(sparse[:, j]) for j, t in enumerate(self.tables)]
        vecs.append(self.tag_bag(tags, tag_offsets, per_sample_weights=tag_w.to(self.tag_bag.weight.dtype)))
        T = torch.stack(vecs, 1)
        inter = T @ T.transpose(1, 2)
        iu = torch.triu_indices(T.shape[1], T.shape[1], offset=1)
        z = torch.cat([x, inter[:, iu[0], iu[1]]], 1)
        return self.top(z).squeeze(-1)


def batches(idx, bs):
    for s in range(0, len(idx), bs):
        b = idx[s:s + bs]
        flat, offs, w = [], [], []
        for i in b:
            offs.append(len(flat))
            flat.extend(tags[i].tolist())
            w.extend([1.0 / len(tags[i])] * len(tags[i]))
        yield (torch.from_numpy(dense[b]), torch.from_numpy(sparse[b]), torch.tensor(flat),
               torch.tensor(offs), torch.tensor(w), torch.from_numpy(df.clicked.to_numpy()[b]))


def auc(y, s):
    order = np.argsort(s)
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    npos = y.sum()
    return (ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(y) - npos))


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = DLRM(len(dense_cols), cards)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
model, opt = accelerator.prepare(model, opt)

idx = rng.permutation(n)
train_idx, val_idx = idx[:6500], idx[6500:]
for epoch in range(3):
    model.train()
    for *feats, y in batches(rng.permutation(train_idx), 256):
        with accelerator.autocast():
            logits = model(*feats)
        loss = F.binary_cross_entropy_with_logits(logits.float(), y)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
    model.eval()
    scores, ys = [], []
    with torch.no_grad():
        for *feats, y in batches(val_idx, 512):
            with accelerator.autocast():
                scores.append(model(*feats).float().cpu().numpy())
            ys.append(y.numpy())
    s, yv = np.concatenate(scores), np.concatenate(ys)
    accelerator.print(f"epoch {epoch} train loss {loss.item():.4f} val AUC {auc(yv, s):.4f}")
