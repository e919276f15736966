"""Wide & Deep CTR model (DLRM-style dense bottom MLP + sparse embeddings) trained with the
HF Trainer on a datasets.Dataset built from a pandas DataFrame; weights in bfloat16."""
import tempfile

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(15)

n = 4000
df = pd.DataFrame({
    "hour": rng.integers(0, 24, n),
    "banner_pos": rng.integers(0, 7, n),
    "site_category": rng.choice(["news", "sports", "shopping", "games", "finance"], n),
    "app_domain": rng.choice([f"dom{i}" for i in range(40)], n),
    "ctr_7d": rng.beta(2, 50, n),
    "impressions_7d": rng.poisson(200, n).astype(float),
    "bid_price": rng.gamma(2.0, 0.5, n),
})
df["click"] = (rng.random(n) < 0.05 + 3 * df.ctr_7d + 0.05 * (df.banner_pos == 0)).astype(int)

dense_cols = ["ctr_7d", "impressions_7d", "bid_price"]
sparse_cols = ["hour", "banner_pos", "site_category", "app_domain"]
for c in sparse_cols:
    df[c] = df[c].astype("category").cat.codes.astype(np.int64)
cards = [int(df[c].max()) + 1 for c in sparse_cols]
mu, sd = df[dense_cols].mean(), df[dense_cols].std()
df[dense_cols] = (df[dense_cols] - mu) / sd

ds = Dataset.from_pandas(pd.DataFrame({
    "dense": list(df[dense_cols].to_numpy()),
    "sparse": list(df[sparse_cols].to_numpy()),
    "labels": df["click"].astype(np.float32),
}))
ds = ds.train_test_split(test_size=0.2, seed=0)
ds.set_format("torch")


class WideDeep(nn.Module):
    def __init__(self, cards, n_dense, d=8):
        super().__init__()
        self.wide = nn.ModuleList(nn.Embedding(c, 1) for c in cards)
        self.deep_emb = nn.ModuleList(nn.Embedding(c, d) for c in cards)
        self.bottom = nn.Sequential(nn.Linear(n_dense, 16), nn.ReLU())
        self.deep = nn.Sequential(nn.Linear(16 + d * len(cards), 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense, sparse, labels=None):
        wide = sum(e(sparse[:, j]) for j, e in enumerate(self.wide)).squeeze(-1)
        deep_in = torch.cat([self.bottom(dense)] + [e(sparse[:, j]) for j, e in enumerate(self.deep_emb)], -1)
        logits = wide + self.deep(deep_in).squeeze(-1)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.binary_cross_entropy_with_logits(logits.float(), labels.float())
        return out


model = WideDeep(cards, len(dense_cols)).to(torch.bfloat16)
args = TrainingArguments(
    output_dir=tempfile.mkdtemp(prefix="widedeep_"),
    per_device_train_batch_size=256,
    per_device_eval_batch_size=512,
    num_train_epochs=2,
    learning_rate=3e-3,
    logging_steps=5,
    eval_strategy="epoch",
    save_strategy="no",
    report_to=[],
    use_cpu=True,
    disable_tqdm=True,
)
trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"])
trainer.train()
print(trainer.evaluate())
