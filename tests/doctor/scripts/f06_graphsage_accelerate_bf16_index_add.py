"""GraphSAGE (mean aggregator) for node classification on a synthetic citation-like graph,
message passing written with index_add_, trained with accelerate bf16 mixed precision."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import set_seed

set_seed(0)
rng = np.random.default_rng(6)

N, F_IN, N_CLASSES = 2000, 32, 5
labels = rng.integers(0, N_CLASSES, N)
centers = rng.normal(0, 1, (N_CLASSES, F_IN))
x = (centers[labels] + rng.normal(0, 2.0, (N, F_IN))).astype(np.float32)
# homophilous random graph
src, dst = [], []
for v in range(N):
    same = np.flatnonzero(labels == labels[v])
    nbrs = np.concatenate([rng.choice(same, 4), rng.integers(0, N, 1)])
    src.extend(nbrs.tolist())
    dst.extend([v] * len(nbrs))
edge_index = torch.tensor(np.array([src + dst, dst + src]))  # undirected


class SAGEConv(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin_self = nn.Linear(d_in, d_out)
        self.lin_neigh = nn.Linear(d_in, d_out, bias=False)

    def forward(self, h, edge_index):
        src, dst = edge_index
        msg = self.lin_neigh(h)[src]
        agg = torch.zeros(h.size(0), msg.size(1), device=h.device)
        agg.index_add_(0, dst, msg)
        deg = torch.bincount(dst, minlength=h.size(0)).clamp(min=1).unsqueeze(1)
        return self.lin_self(h) + agg / deg


class SAGE(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([SAGEConv(F_IN, 64), SAGEConv(64, 64)])
        self.head = nn.Linear(64, N_CLASSES)

    def forward(self, x, edge_index):
        for conv in self.convs:
            x = F.relu(conv(x, edge_index))
            x = F.dropout(x, 0.2, self.training)
        return self.head(x)


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = SAGE()
opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=5e-4)
model, opt = accelerator.prepare(model, opt)

X = torch.from_numpy(x)
y = torch.from_numpy(labels)
train_mask = torch.from_numpy(rng.random(N) < 0.6)
for epoch in range(50):
    model.train()
    out = model(X, edge_index)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    accelerator.backward(loss)
    opt.step()
    opt.zero_grad()
    if epoch % 10 == 0:
        model.eval()
        with torch.no_grad():
            pred = model(X, edge_index).argmax(-1)
        acc = (pred[~train_mask] == y[~train_mask]).float().mean().item()
        accelerator.print(f"epoch {epoch:2d} loss {loss.item():.4f} val acc {acc:.3f}")
