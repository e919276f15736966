import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(13)
N_NODES, N_CLASSES, VOCAB = 600, 5, 400
CACHE = tempfile.mkdtemp(prefix="graph_cache_")


def build_citation_graph():
    y = rng.integers(0, N_CLASSES, N_NODES)
    p_in, p_out = 0.04, 0.004
    same = y[:, None] == y[None, :]
    adj = rng.random((N_NODES, N_NODES)) < np.where(same, p_in, p_out)
    adj = np.triu(adj, 1)
    adj = adj | adj.T
    topic_words = rng.choice(VOCAB - 60, size=(N_CLASSES, 40), replace=False)
    feats = np.zeros((N_NODES, VOCAB))
    for i in range(N_NODES):
        words = np.concatenate([rng.choice(topic_words[y[i]], 8), rng.integers(0, VOCAB - 60, 4)])
        feats[i, words] = 1.0
    return adj, feats, y


def normalized_adjacency(adj):
    a = adj.astype(np.float64) + np.eye(len(adj))
    d = 1.0 / np.sqrt(a.sum(1))
    return d[:, None] * a * d[None, :]


adj, feats, labels = build_citation_graph()
np.save(os.path.join(CACHE, "feats.npy"), feats.astype(np.float16))
np.save(os.path.join(CACHE, "adj_norm.npy"), normalized_adjacency(adj).astype(np.float16))
np.save(os.path.join(CACHE, "labels.npy"), labels)

x = torch.from_numpy(np.load(os.path.join(CACHE, "feats.npy")))
a_hat = torch.from_numpy(np.load(os.path.join(CACHE, "adj_norm.npy")))
y = torch.from_numpy(np.load(os.path.join(CACHE, "labels.npy")))
print(f"loaded features {tuple(x.shape)} {x.dtype}, adjacency nnz {(a_hat != 0).sum().item()}")

perm = torch.randperm(N_NODES)
train_idx, val_idx = perm[:120], perm[300:]


class GCN(nn.Module):
    def __init__(self, n_in, hidden, n_out, dropout=0.3):
        super().__init__()
        self.lin1 = nn.Linear(n_in, hidden)
        self.lin2 = nn.Linear(hidden, n_out)
        self.dropout = dropout

    def forward(self, x, a_hat):
        h = F.relu(a_hat @ self.lin1(x))
        h = F.dropout(h, self.dropout, self.training)
        return a_hat @ self.lin2(h)


model = GCN(VOCAB, 32, N_CLASSES).to(x.dtype)
opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)

for epoch in range(60):
    model.train()
    logits = model(x, a_hat)
    loss = F.cross_entropy(logits[train_idx].float(), y[train_idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        model.eval()
        with torch.no_grad():
            pred = model(x, a_hat).argmax(1)
        acc = (pred[val_idx] == y[val_idx]).float().mean().item()
        print(f"epoch {epoch + 1} loss {loss.item():.4f} val_acc {acc:.3f}")
