import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(1)

CARDINALITIES = [50, 12, 7, 200]   # site, ad category, weekday, creative
N_DENSE = 4


def load_click_log(n=6000):
    dense = rng.lognormal(0.0, 1.0, size=(n, N_DENSE))
    dense = np.log1p(dense)
    cats = np.column_stack([rng.integers(0, c, n) for c in CARDINALITIES])
    w = rng.normal(0, 1, size=sum(CARDINALITIES))
    offsets = np.cumsum([0] + CARDINALITIES[:-1])
    logit = w[cats + offsets].sum(1)
    logit = logit + dense @ np.array([0.5, -0.3, 0.2, 0.1]) - 1.0
    clicked = rng.random(n) < 1 / (1 + np.exp(-logit))
    table = np.concatenate([dense, cats], axis=1).astype(np.float32)
    return table, clicked.astype(np.float32)


class CTRModel(nn.Module):
    def __init__(self, cardinalities, n_dense, dim=16):
        super().__init__()
        self.emb_tables = nn.ModuleList(nn.Embedding(c, dim) for c in cardinalities)
        self.dense_proj = nn.Linear(n_dense, dim)
        n_fields = len(cardinalities) + 1
        self.mlp = nn.Sequential(nn.Linear(n_fields * dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, row):
        dense, cats = row[:, :N_DENSE], row[:, N_DENSE:]
        fields = [self.dense_proj(dense)]
        for i, table in enumerate(self.emb_tables):
            fields.append(table(cats[:, i]))
        return self.mlp(torch.cat(fields, dim=1)).squeeze(-1)


def auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


table, clicked = load_click_log()
split = 5000
train_dl = DataLoader(TensorDataset(torch.from_numpy(table[:split]), torch.from_numpy(clicked[:split])),
                      batch_size=128, shuffle=True)
val_x, val_y = torch.from_numpy(table[split:]), clicked[split:]

model = CTRModel(CARDINALITIES, N_DENSE)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)

for epoch in range(5):
    model.train()
    running = 0.0
    for xb, yb in train_dl:
        logits = model(xb)
        loss = F.binary_cross_entropy_with_logits(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
    model.eval()
    with torch.no_grad():
        scores = torch.sigmoid(model(val_x)).numpy()
    print(f"epoch {epoch} loss {running / len(train_dl):.4f} val_auc {auc(scores, val_y):.4f}")
