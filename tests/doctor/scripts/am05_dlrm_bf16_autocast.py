import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(5)

N_DENSE, N_CAT, BUCKETS, EMB = 6, 5, 4096, 16


def make_log(n=8192):
    df = pd.DataFrame({f"num_{i}": rng.exponential(3.0, n) for i in range(N_DENSE)})
    df["is_weekend"] = rng.random(n) < 0.3
    for j in range(N_CAT):
        df[f"cat_{j}"] = pd.Categorical(rng.integers(0, 3000 * (j + 1), n))
    score = 1.5 * np.log1p(df["num_0"]) - 1.0 * df["is_weekend"] + 1.0 * (df["cat_0"].cat.codes % 7 == 0)
    df["click"] = rng.random(n) < 1 / (1 + np.exp(-(score - 2.0)))
    return df


def to_tensors(df):
    dense = np.log1p(df[[f"num_{i}" for i in range(N_DENSE)]].to_numpy())
    dense = np.column_stack([dense, df["is_weekend"].to_numpy()]).astype(np.float32)
    cats = np.stack([df[f"cat_{j}"].cat.codes.to_numpy().astype(np.int64) % BUCKETS for j in range(N_CAT)], 1)
    return torch.from_numpy(dense), torch.from_numpy(cats), torch.tensor(df["click"].to_numpy(), dtype=torch.float32)


class DLRM(nn.Module):
    def __init__(self, n_dense):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(n_dense, 32), nn.ReLU(), nn.Linear(32, EMB))
        self.tables = nn.ModuleList(nn.EmbeddingBag(BUCKETS, EMB, mode="sum", sparse=True) for _ in range(N_CAT))
        n = N_CAT + 1
        self.register_buffer("li", torch.tril_indices(n, n, offset=-1), persistent=False)
        self.top = nn.Sequential(nn.Linear(EMB + n * (n - 1) // 2, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, dense, cats):
        x = self.bottom(dense)
        ly = [t(cats[:, j], torch.arange(cats.shape[0])) for j, t in enumerate(self.tables)]
        z = torch.stack([x] + ly, 1)
        zz = torch.bmm(z, z.transpose(1, 2))[:, self.li[0], self.li[1]]
        return self.top(torch.cat([x, zz], 1)).squeeze(1)


dense, cats, y = to_tensors(make_log())
split = 7000
model = DLRM(dense.shape[1])
sparse_params = [p for n, p in model.named_parameters() if n.startswith("tables")]
dense_params = [p for n, p in model.named_parameters() if not n.startswith("tables")]
opt_sparse = torch.optim.SparseAdam(sparse_params, lr=1e-2)
opt_dense = torch.optim.Adam(dense_params, lr=1e-3)

for epoch in range(3):
    perm = torch.randperm(split)
    for s in range(0, split, 256):
        b = perm[s:s + 256]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(dense[b], cats[b])
        loss = F.binary_cross_entropy_with_logits(logits.float(), y[b])
        opt_sparse.zero_grad()
        opt_dense.zero_grad()
        loss.backward()
        opt_sparse.step()
        opt_dense.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    logits = model(dense[split:], cats[split:]).float()
val_loss = F.binary_cross_entropy_with_logits(logits, y[split:])
order = logits.argsort(descending=True)
pos = y[split:][order]
auc = (pos.cumsum(0) * (1 - pos)).sum() / (pos.sum() * (1 - pos).sum())
print(f"val loss {val_loss.item():.4f}  auc {auc.item():.4f}")
