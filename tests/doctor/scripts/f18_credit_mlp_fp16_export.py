"""Credit-default tabular MLP with in-model feature standardisation (so the serving
artifact is self-contained). Trained in fp32, exported as an fp16 safetensors file
for the scoring service, then re-loaded and checked against the fp32 model."""
import os
import tempfile

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file, load_file

torch.manual_seed(0)
rng = np.random.default_rng(18)

n = 6000
df = pd.DataFrame({
    "annual_income": rng.lognormal(11.3, 0.35, n),
    "loan_amount": rng.gamma(3.0, 5000.0, n),
    "credit_utilization": rng.beta(2, 5, n),
    "years_employed": rng.integers(0, 40, n).astype(float),
    "n_open_accounts": rng.poisson(6, n).astype(float),
    "home_owner": rng.choice(["rent", "own", "mortgage"], n),
})
dti = df.loan_amount / df.annual_income
df["default"] = (rng.random(n) < 1 / (1 + np.exp(-(-3 + 6 * dti + 3 * df.credit_utilization)))).astype(np.float32)
df = pd.get_dummies(df, columns=["home_owner"], dtype=float)
feature_cols = [c for c in df.columns if c != "default"]
X = torch.tensor(df[feature_cols].to_numpy(), dtype=torch.float32)
y = torch.tensor(df["default"].to_numpy())


class Standardize(nn.Module):
    def __init__(self, x):
        super().__init__()
        self.register_buffer("mean", x.mean(0))
        self.register_buffer("std", x.std(0).clamp(min=1e-3))

    def forward(self, x):
        return (x - self.mean) / self.std


class CreditMLP(nn.Module):
    def __init__(self, x_train):
        super().__init__()
        self.norm = Standardize(x_train)
        self.net = nn.Sequential(nn.Linear(x_train.size(1), 64), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(self.norm(x.to(self.norm.mean.dtype))).squeeze(-1)


def auc(y, s):
    ranks = np.argsort(np.argsort(s)) + 1
    npos = y.sum()
    return (ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(y) - npos))


tr, te = slice(0, 5000), slice(5000, n)
model = CreditMLP(X[tr])
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(8):
    perm = torch.randperm(5000)
    for s in range(0, 5000, 256):
        b = perm[s:s + 256]
        loss = F.binary_cross_entropy_with_logits(model(X[tr][b]), y[tr][b])
        opt.zero_grad()
        loss.backward()
        opt.step()
model.eval()
with torch.no_grad():
    ref = torch.sigmoid(model(X[te])).numpy()
print(f"fp32 model: test AUC {auc(y[te].numpy(), ref):.4f}")

# ---- export fp16 artifact for the scoring service ----
out_dir = tempfile.mkdtemp(prefix="credit_export_")
path = os.path.join(out_dir, "credit_mlp_fp16.safetensors")
save_file(model.half().state_dict(), path)
print(f"exported {os.path.getsize(path) / 1024:.1f} KiB")

served = CreditMLP(X[tr]).half()
served.load_state_dict(load_file(path))
served.eval()
with torch.no_grad():
    scores = torch.sigmoid(served(X[te]).float()).numpy()
print(f"fp16 artifact: test AUC {auc(y[te].numpy(), scores):.4f}, "
      f"max |fp16 - fp32| = {np.abs(scores - ref).max():.5f}, approve rate @0.2 = {(scores < 0.2).mean():.3f}")
