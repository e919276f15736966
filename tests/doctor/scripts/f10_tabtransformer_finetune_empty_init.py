"""TabTransformer fine-tuning from a pretraining checkpoint (safetensors).

The model is instantiated under accelerate's init_empty_weights() so the (large)
random init is skipped, then the checkpoint is loaded with assign=True.
"""
import os
import tempfile

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import init_empty_weights
from safetensors.torch import save_file, load_file

torch.manual_seed(0)
rng = np.random.default_rng(10)

n = 3000
df = pd.DataFrame({
    "workclass": rng.choice(["private", "self-emp", "gov", "none"], n),
    "education": rng.choice(["hs", "college", "bachelors", "masters", "phd"], n),
    "marital": rng.choice(["single", "married", "divorced"], n),
    "occupation": rng.choice([f"occ{i}" for i in range(12)], n),
    "age": rng.integers(18, 80, n).astype(float),
    "hours_per_week": rng.normal(40, 10, n),
    "capital_gain": rng.exponential(500, n),
})
df.loc[rng.random(n) < 0.1, "hours_per_week"] = np.nan
df["income_gt_50k"] = ((df.education.isin(["masters", "phd"])) | (df.hours_per_week.fillna(40) > 50)).astype(int)

cat_cols = ["workclass", "education", "marital", "occupation"]
num_cols = ["age", "hours_per_week", "capital_gain"]
cats = np.stack([df[c].astype("category").cat.codes.to_numpy().astype(np.int64) for c in cat_cols], 1)
cards = [int(df[c].nunique()) for c in cat_cols]
num = df[num_cols].fillna(df[num_cols].median()).to_numpy()
num = ((num - num.mean(0)) / num.std(0)).astype(np.float32)
y = df["income_gt_50k"].to_numpy()


class TabTransformer(nn.Module):
    def __init__(self, cards, n_num, d=32, heads=4, layers=2, col_emb_name="column_embedding"):
        super().__init__()
        self.col_emb_name = col_emb_name
        self.cat_embeds = nn.ModuleList(nn.Embedding(c, d) for c in cards)
        setattr(self, col_emb_name, nn.Parameter(torch.randn(len(cards), d) * 0.02))
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=64, batch_first=True, dropout=0.1)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.num_norm = nn.LayerNorm(n_num)
        self.head = nn.Sequential(nn.Linear(len(cards) * d + n_num, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, cats, num):
        tok = torch.stack([emb(cats[:, j]) for j, emb in enumerate(self.cat_embeds)], 1)
        tok = tok + getattr(self, self.col_emb_name)
        ctx = self.encoder(tok).flatten(1)
        return self.head(torch.cat([ctx, self.num_norm(num)], 1))


tmp = tempfile.mkdtemp(prefix="tabtf_")
ckpt = os.path.join(tmp, "pretrained.safetensors")
# checkpoint produced by the pretraining job (older code named the column embedding differently)
pretrained = TabTransformer(cards, len(num_cols), col_emb_name="shared_col_embed")
save_file(pretrained.state_dict(), ckpt)

with init_empty_weights():
    model = TabTransformer(cards, len(num_cols))
result = model.load_state_dict(load_file(ckpt), strict=False, assign=True)
print(f"loaded checkpoint: {len(result.missing_keys)} missing, {len(result.unexpected_keys)} unexpected keys")

opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
C, X, Y = torch.from_numpy(cats), torch.from_numpy(num), torch.from_numpy(y)
for epoch in range(3):
    model.train()
    perm = torch.randperm(n)
    for s in range(0, 2400, 128):
        b = perm[s:s + 128]
        loss = F.cross_entropy(model(C[b], X[b]), Y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(C[2400:], X[2400:]).argmax(-1) == Y[2400:]).float().mean().item()
    print(f"epoch {epoch} loss {loss.item():.4f} val acc {acc:.3f}")
