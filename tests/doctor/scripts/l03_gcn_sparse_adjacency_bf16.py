"""Semi-supervised node classification with a 2-layer GCN (Kipf & Welling) on a synthetic
citation-style graph. Symmetric-normalised adjacency kept as a torch sparse tensor.
Model and features in bfloat16 to save memory."""
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_NODES, N_FEAT, N_CLASSES, HIDDEN = 600, 96, 5, 32


def make_graph():
    labels = rng.integers(0, N_CLASSES, N_NODES)
    centers = rng.normal(0, 1, (N_CLASSES, N_FEAT))
    feats = (centers[labels] + rng.normal(0, 2.0, (N_NODES, N_FEAT)) > 0.5).astype(np.float32)
    src, dst = [], []
    for i in range(N_NODES):
        same = np.flatnonzero(labels == labels[i])
        for j in rng.choice(same, 3):
            src.append(i); dst.append(j)
        j = rng.integers(0, N_NODES)
        src.append(i); dst.append(j)
    src, dst = np.array(src), np.array(dst)
    # undirected + self loops
    row = np.concatenate([src, dst, np.arange(N_NODES)])
    col = np.concatenate([dst, src, np.arange(N_NODES)])
    return feats, labels, row, col


def normalized_adjacency(row, col, n):
    idx = torch.tensor(np.stack([row, col]), dtype=torch.long)
    val = torch.ones(idx.shape[1])
    adj = torch.sparse_coo_tensor(idx, val, (n, n)).coalesce()
    adj = torch.sparse_coo_tensor(adj.indices(), torch.ones_like(adj.values()), (n, n)).coalesce()
    deg = torch.sparse.sum(adj, dim=1).to_dense()
    d_inv_sqrt = deg.pow(-0.5)
    r, c = adj.indices()
    vals = d_inv_sqrt[r] * adj.values() * d_inv_sqrt[c]
    return torch.sparse_coo_tensor(adj.indices(), vals, (n, n)).coalesce()


class GraphConvolution(nn.Module):
    def __init__(self, in_f, out_f):
        super().__init__()
        self.linear = nn.Linear(in_f, out_f, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_f))

    def forward(self, x, adj):
        support = self.linear(x)
        return torch.sparse.mm(adj, support) + self.bias


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.gc1 = GraphConvolution(N_FEAT, HIDDEN)
        self.gc2 = GraphConvolution(HIDDEN, N_CLASSES)
        self.dropout = nn.Dropout(0.5)

    def forward(self, x, adj):
        x = F.relu(self.gc1(self.dropout(x), adj))
        return self.gc2(self.dropout(x), adj)


def main():
    t0 = time.time()
    feats, labels, row, col = make_graph()
    adj = normalized_adjacency(row, col, N_NODES)
    x = torch.from_numpy(feats).to(torch.bfloat16)
    y = torch.from_numpy(labels).long()
    perm = torch.randperm(N_NODES)
    train_idx, val_idx, test_idx = perm[:140], perm[140:340], perm[340:]

    model = GCN().to(torch.bfloat16)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)

    for epoch in range(100):
        model.train()
        out = model(x, adj)
        loss = F.cross_entropy(out[train_idx].float(), y[train_idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 20 == 0:
            model.eval()
            with torch.no_grad():
                pred = model(x, adj).argmax(1)
                val_acc = (pred[val_idx] == y[val_idx]).float().mean().item()
            print(f"epoch {epoch:3d} loss {loss.item():.4f} val acc {val_acc:.3f}")

    model.eval()
    with torch.no_grad():
        pred = model(x, adj).argmax(1)
    print(f"test acc {(pred[test_idx] == y[test_idx]).float().mean().item():.3f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
