"""NGCF-style collaborative filtering with a normalised sparse adjacency (torch.sparse),
weights cast to half precision to fit a bigger embedding table."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(9)

N_U, N_I, D = 800, 1600, 32
rows, cols = [], []
for u in range(N_U):
    base = (u % 16) * 100
    items = np.unique((base + rng.integers(0, 100, rng.integers(4, 20))) % N_I)
    rows += [u] * len(items)
    cols += items.tolist()
rows, cols = np.array(rows), np.array(cols)


def build_norm_adj(rows, cols):
    n = N_U + N_I
    r = np.concatenate([rows, cols + N_U])
    c = np.concatenate([cols + N_U, rows])
    deg = np.bincount(r, minlength=n).astype(np.float32)
    dinv = np.power(np.maximum(deg, 1.0), -0.5)
    vals = dinv[r] * dinv[c]
    adj = torch.sparse_coo_tensor(torch.from_numpy(np.stack([r, c])), torch.from_numpy(vals), (n, n))
    return adj.coalesce()


class NGCF(nn.Module):
    def __init__(self, adj, layers=2):
        super().__init__()
        self.adj = adj
        self.emb = nn.Embedding(N_U + N_I, D)
        nn.init.xavier_uniform_(self.emb.weight)
        self.W1 = nn.ModuleList(nn.Linear(D, D) for _ in range(layers))
        self.W2 = nn.ModuleList(nn.Linear(D, D) for _ in range(layers))

    def forward(self):
        ego = self.emb.weight
        all_embs = [ego]
        for w1, w2 in zip(self.W1, self.W2):
            side = torch.sparse.mm(self.adj, ego)
            ego = F.leaky_relu(w1(side) + w2(side * ego), 0.2)
            ego = F.normalize(ego, dim=1)
            all_embs.append(ego)
        h = torch.cat(all_embs, 1)
        return h[:N_U], h[N_U:]


adj = build_norm_adj(rows, cols)
model = NGCF(adj).half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(3):
    perm = rng.permutation(len(rows))
    for s in range(0, len(rows), 2048):
        b = perm[s:s + 2048]
        U, I = model()
        u, p = torch.from_numpy(rows[b]), torch.from_numpy(cols[b])
        n_ = torch.from_numpy(rng.integers(0, N_I, len(b)))
        loss = -F.logsigmoid((U[u] * I[p]).sum(-1) - (U[u] * I[n_]).sum(-1)).float().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} bpr loss {loss.item():.4f}")
