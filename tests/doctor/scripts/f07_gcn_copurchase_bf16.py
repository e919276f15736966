"""Two-layer GCN for item category prediction on a co-purchase graph (bf16).

Symmetric normalisation D^-1/2 A D^-1/2 applied as: scale by D^-1/2, sum over
neighbours with index_add_, scale by D^-1/2 again. Newly listed items have no
co-purchases yet.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(7)

N_ITEMS, F_IN, N_CAT = 1500, 24, 6
cat = rng.integers(0, N_CAT, N_ITEMS)
feat = (np.eye(N_CAT)[cat] @ rng.normal(0, 1, (N_CAT, F_IN)) + rng.normal(0, 1.5, (N_ITEMS, F_IN)))
is_new = rng.random(N_ITEMS) < 0.05          # cold-start listings
old = np.flatnonzero(~is_new)

# co-purchase edges only among items with sales history
src, dst = [], []
for _ in range(6000):
    a = rng.choice(old)
    pool = old[cat[old] == cat[a]] if rng.random() < 0.8 else old
    b = rng.choice(pool)
    if a != b:
        src += [a, b]
        dst += [b, a]
edge_index = torch.tensor([src, dst])

X = torch.tensor(feat, dtype=torch.bfloat16)
Y = torch.tensor(cat)


def gcn_norm(edge_index, n, dtype):
    deg = torch.zeros(n, dtype=dtype).index_add_(0, edge_index[1], torch.ones(edge_index.size(1), dtype=dtype))
    return deg.pow(-0.5)


class GCNLayer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, h, edge_index, dinv):
        h = self.lin(h) * dinv.unsqueeze(1)
        out = torch.zeros_like(h).index_add_(0, edge_index[1], h[edge_index[0]])
        return out * dinv.unsqueeze(1)


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = GCNLayer(F_IN, 64)
        self.l2 = GCNLayer(64, N_CAT)

    def forward(self, x, edge_index):
        dinv = gcn_norm(edge_index, x.size(0), x.dtype)
        h = F.relu(self.l1(x, edge_index, dinv))
        return self.l2(h, edge_index, dinv)


model = GCN().to(torch.bfloat16)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
perm = torch.from_numpy(rng.permutation(N_ITEMS))
train_idx, test_idx = perm[:1000], perm[1000:]

for epoch in range(40):
    model.train()
    logits = model(X, edge_index)
    loss = F.cross_entropy(logits[train_idx].float(), Y[train_idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        with torch.no_grad():
            acc = (model(X, edge_index)[test_idx].argmax(-1) == Y[test_idx]).float().mean()
        print(f"epoch {epoch + 1} loss {loss.item():.4f} test acc {acc.item():.3f}")
