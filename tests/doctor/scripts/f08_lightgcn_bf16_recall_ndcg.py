"""LightGCN on a user-item bipartite graph with bf16 embeddings, BPR loss with sampled
negatives, and recall@20 / NDCG@20 computed in NumPy."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(8)

N_U, N_I, D, LAYERS = 600, 1200, 32, 2
group_u = rng.integers(0, 12, N_U)
inter = set()
for u in range(N_U):
    for _ in range(rng.integers(3, 25)):
        i = (group_u[u] * 100 + rng.integers(0, 100)) % N_I if rng.random() < 0.85 else rng.integers(0, N_I)
        inter.add((u, int(i)))
inter = np.array(sorted(inter))
rng.shuffle(inter)
n_test = len(inter) // 10
test, train = inter[:n_test], inter[n_test:]
train_pos = {}
for u, i in train:
    train_pos.setdefault(int(u), set()).add(int(i))
test_pos = {}
for u, i in test:
    test_pos.setdefault(int(u), set()).add(int(i))

# bipartite graph: users 0..N_U-1, items N_U..N_U+N_I-1
u_t = torch.from_numpy(train[:, 0])
i_t = torch.from_numpy(train[:, 1]) + N_U
src = torch.cat([u_t, i_t])
dst = torch.cat([i_t, u_t])
N = N_U + N_I
deg = torch.bincount(dst, minlength=N).float()
dinv = deg.clamp(min=1).pow(-0.5)
edge_w = (dinv[src] * dinv[dst]).to(torch.bfloat16)


class LightGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(N, D)
        nn.init.normal_(self.emb.weight, std=0.1)

    def propagate(self):
        h = self.emb.weight
        out = [h]
        for _ in range(LAYERS):
            msg = h[src] * edge_w.unsqueeze(1)
            h = torch.zeros_like(h).index_add_(0, dst, msg)
            out.append(h)
        h = torch.stack(out).mean(0)
        return h[:N_U], h[N_U:]


model = LightGCN().to(torch.bfloat16)
opt = torch.optim.Adam(model.parameters(), lr=5e-3)


def sample_neg(users):
    neg = rng.integers(0, N_I, len(users))
    for j, u in enumerate(users):
        while neg[j] in train_pos[int(u)]:
            neg[j] = rng.integers(0, N_I)
    return torch.from_numpy(neg)


def evaluate(k=20):
    with torch.no_grad():
        U, I = model.propagate()
        scores = (U @ I.T).float().numpy()
    recalls, ndcgs = [], []
    for u, pos in test_pos.items():
        s = scores[u].copy()
        s[list(train_pos.get(u, ()))] = s.min() - 1.0  # exclude already-seen items
        top = np.argpartition(-s, k)[:k]
        top = top[np.argsort(-s[top])]
        hits = np.isin(top, list(pos)).astype(float)
        recalls.append(hits.sum() / len(pos))
        dcg = (hits / np.log2(np.arange(2, k + 2))).sum()
        idcg = (1.0 / np.log2(np.arange(2, min(len(pos), k) + 2))).sum()
        ndcgs.append(dcg / idcg)
    return np.mean(recalls), np.mean(ndcgs)


for epoch in range(6):
    perm = rng.permutation(len(train))
    tot = 0.0
    for s in range(0, len(train), 1024):
        b = train[perm[s:s + 1024]]
        U, I = model.propagate()
        u = torch.from_numpy(b[:, 0])
        p = torch.from_numpy(b[:, 1])
        n_ = sample_neg(b[:, 0])
        pos_s = (U[u] * I[p]).sum(-1).float()
        neg_s = (U[u] * I[n_]).sum(-1).float()
        reg = 1e-4 * (model.emb.weight[u].float().pow(2).sum() + model.emb.weight[N_U + p].float().pow(2).sum()) / len(b)
        loss = -F.logsigmoid(pos_s - neg_s).mean() + reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item()
    r, nd = evaluate()
    print(f"epoch {epoch} loss {tot / (len(train) // 1024 + 1):.4f} recall@20 {r:.4f} ndcg@20 {nd:.4f}")
