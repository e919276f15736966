"""TabTransformer on a churn-style pandas DataFrame (object + float64 columns with NaNs),
trained with the HF Trainer using bf16 autocast on CPU."""
import tempfile

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(17)

n = 3000
df = pd.DataFrame({
    "plan": rng.choice(["basic", "plus", "premium", None], n, p=[0.5, 0.3, 0.15, 0.05]),
    "region": rng.choice(["north", "south", "east", "west"], n),
    "payment": rng.choice(["card", "paypal", "invoice"], n),
    "tenure_months": rng.integers(1, 72, n).astype(float),
    "monthly_spend": rng.lognormal(3.5, 0.6, n),
    "support_calls": rng.poisson(1.5, n).astype(float),
    "annual_income": rng.normal(65000, 20000, n),
})
df.loc[rng.random(n) < 0.2, "annual_income"] = np.nan
df.loc[rng.random(n) < 0.05, "monthly_spend"] = np.nan
churn_logit = -1.0 + 0.6 * df.support_calls - 0.04 * df.tenure_months + 0.8 * (df.payment == "invoice")
df["churn"] = (rng.random(n) < 1 / (1 + np.exp(-churn_logit))).astype(np.int64)

cat_cols = ["plan", "region", "payment"]
num_cols = ["tenure_months", "monthly_spend", "support_calls", "annual_income"]
df[cat_cols] = df[cat_cols].fillna("missing")
cat_codes = np.stack([df[c].astype("category").cat.codes.to_numpy().astype(np.int64) for c in cat_cols], 1)
cards = [int(cat_codes[:, j].max()) + 1 for j in range(len(cat_cols))]
num = df[num_cols].to_numpy(dtype=np.float64)
num = np.where(np.isnan(num), np.nanmedian(num, axis=0), num)
num = ((num - num.mean(0)) / num.std(0)).astype(np.float32)

ds = Dataset.from_dict({"cats": cat_codes, "nums": num, "labels": df["churn"].to_numpy()})
ds = ds.train_test_split(test_size=0.2, seed=0)
ds.set_format("torch")


class TabTransformer(nn.Module):
    def __init__(self, cards, n_num, d=32):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(c, d) for c in cards)
        self.col_embed = nn.Parameter(torch.randn(len(cards), d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.num_norm = nn.LayerNorm(n_num)
        self.head = nn.Sequential(nn.Linear(len(cards) * d + n_num, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, cats, nums, labels=None):
        tok = torch.stack([e(cats[:, j]) for j, e in enumerate(self.embs)], 1) + self.col_embed
        h = torch.cat([self.encoder(tok).flatten(1), self.num_norm(nums)], -1)
        logits = self.head(h)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.cross_entropy(logits.float(), labels)
        return out


def compute_metrics(pred):
    logits, labels = pred
    logits = logits.astype(np.float64)
    p = np.exp(logits[:, 1] - np.logaddexp(logits[:, 0], logits[:, 1]))
    order = np.argsort(p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    npos = labels.sum()
    auc = (ranks[labels == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(labels) - npos))
    return {"accuracy": float(((p > 0.5) == labels).mean()), "auc": float(auc)}


args = TrainingArguments(
    output_dir=tempfile.mkdtemp(prefix="tabtf_trainer_"),
    per_device_train_batch_size=128,
    per_device_eval_batch_size=256,
    num_train_epochs=3,
    learning_rate=2e-3,
    weight_decay=0.01,
    bf16=True,
    use_cpu=True,
    eval_strategy="epoch",
    logging_steps=10,
    save_strategy="no",
    report_to=[],
    disable_tqdm=True,
)
trainer = Trainer(model=TabTransformer(cards, len(num_cols)), args=args,
                  train_dataset=ds["train"], eval_dataset=ds["test"], compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
