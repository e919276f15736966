import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(14)

N_FIELDS, HASH_ROWS, EMB = 7, 1 << 14, 12


class HashedLookup(torch.autograd.Function):
    @staticmethod
    def forward(ctx, weight, ids):
        ctx.save_for_backward(ids)
        ctx.rows, ctx.dim = weight.shape
        return weight.index_select(0, ids.reshape(-1)).view(*ids.shape, ctx.dim)

    @staticmethod
    def backward(ctx, grad_out):
        (ids,) = ctx.saved_tensors
        grad_weight = torch.zeros(ctx.rows, ctx.dim)
        grad_weight.index_add_(0, ids.reshape(-1), grad_out.reshape(-1, ctx.dim))
        return grad_weight, None


class HashedEmbedding(nn.Module):
    def __init__(self, rows, dim, n_hashes=2):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(rows, dim) * 0.02)
        self.register_buffer("seeds", torch.tensor([1000003, 998244353][:n_hashes]))
        self.rows = rows

    def forward(self, raw_ids):
        hashed = (raw_ids[..., None] * self.seeds + 12345) % self.rows
        return HashedLookup.apply(self.weight, hashed).sum(-2)


class CrossLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x0, x):
        return x0 * self.lin(x) + x


class DCNv2(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = HashedEmbedding(HASH_ROWS, EMB)
        d = N_FIELDS * EMB + 2
        self.cross = nn.ModuleList(CrossLayer(d) for _ in range(3))
        self.deep = nn.Sequential(nn.Linear(d, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
        self.head = nn.Linear(d + 64, 1)

    def forward(self, cat_ids, numeric):
        x0 = torch.cat([self.embedding(cat_ids).flatten(1), numeric], dim=1)
        x = x0
        for layer in self.cross:
            x = layer(x0, x)
        return self.head(torch.cat([x, self.deep(x0)], 1)).squeeze(1)


def impressions(n=12000):
    df = pd.DataFrame({f"c{j}": rng.integers(0, 10 ** (j + 2), n) for j in range(N_FIELDS)})
    df["ad_age_days"] = rng.exponential(20, n)
    df["bid"] = rng.gamma(2.0, 0.5, n)
    logit = -2 + 0.8 * (df["c0"] % 5 == 0) + 0.5 * np.log1p(df["bid"]) - 0.02 * df["ad_age_days"]
    df["click"] = rng.random(n) < 1 / (1 + np.exp(-logit))
    return df


df = impressions()
cats = torch.tensor(df[[f"c{j}" for j in range(N_FIELDS)]].to_numpy())
num = torch.tensor(np.column_stack([np.log1p(df["ad_age_days"]), df["bid"]]), dtype=torch.bfloat16)
y = torch.tensor(df["click"].to_numpy(), dtype=torch.float32)

model = DCNv2().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for epoch in range(3):
    perm = torch.randperm(len(y))
    for s in range(0, len(y), 512):
        b = perm[s:s + 512]
        loss = F.binary_cross_entropy_with_logits(model(cats[b], num[b]).float(), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} logloss {loss.item():.4f}")
