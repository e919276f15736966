"""NeuMF (GMF + MLP) trained with pointwise BCE on 1 positive : 4 sampled negatives,
bf16 weights; leave-one-out evaluation with HR@10 / NDCG@10 computed in NumPy."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(13)

N_U, N_I = 700, 1400
genre_u = rng.integers(0, 14, N_U)
hist = {u: list(dict.fromkeys(((genre_u[u] * 100 + rng.integers(0, 100, rng.integers(6, 30))) % N_I).tolist()))
        for u in range(N_U)}
test_item = {u: items[-1] for u, items in hist.items()}
train = np.array([(u, i) for u, items in hist.items() for i in items[:-1]])
seen = {u: set(items) for u, items in hist.items()}


class NeuMF(nn.Module):
    def __init__(self, d_gmf=16, d_mlp=32):
        super().__init__()
        self.u_gmf, self.i_gmf = nn.Embedding(N_U, d_gmf), nn.Embedding(N_I, d_gmf)
        self.u_mlp, self.i_mlp = nn.Embedding(N_U, d_mlp), nn.Embedding(N_I, d_mlp)
        for e in (self.u_gmf, self.i_gmf, self.u_mlp, self.i_mlp):
            nn.init.normal_(e.weight, std=0.01)
        self.mlp = nn.Sequential(nn.Linear(2 * d_mlp, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.out = nn.Linear(d_gmf + 32, 1)

    def forward(self, u, i):
        g = self.u_gmf(u) * self.i_gmf(i)
        m = self.mlp(torch.cat([self.u_mlp(u), self.i_mlp(i)], -1))
        return self.out(torch.cat([g, m], -1)).squeeze(-1)


def make_epoch(n_neg=4):
    users = np.repeat(train[:, 0], 1 + n_neg)
    items = np.repeat(train[:, 1], 1 + n_neg)
    labels = np.tile(np.r_[1.0, np.zeros(n_neg)], len(train)).astype(np.float32)
    neg_slots = labels == 0
    items[neg_slots] = rng.integers(0, N_I, neg_slots.sum())
    return users, items, labels


def evaluate(model, k=10, n_cand=99):
    model.eval()
    hrs, ndcgs = [], []
    with torch.no_grad():
        for u in range(N_U):
            cands = [test_item[u]]
            while len(cands) < n_cand + 1:
                j = int(rng.integers(N_I))
                if j not in seen[u]:
                    cands.append(j)
            scores = model(torch.full((len(cands),), u), torch.tensor(cands)).numpy()
            rank = int((scores > scores[0]).sum())
            hrs.append(rank < k)
            ndcgs.append(1.0 / np.log2(rank + 2) if rank < k else 0.0)
    model.train()
    return float(np.mean(hrs)), float(np.mean(ndcgs))


model = NeuMF().to(torch.bfloat16)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(3):
    users, items, labels = make_epoch()
    perm = rng.permutation(len(users))
    for s in range(0, len(users), 2048):
        b = perm[s:s + 2048]
        logits = model(torch.from_numpy(users[b]), torch.from_numpy(items[b]))
        loss = F.binary_cross_entropy_with_logits(logits.float(), torch.from_numpy(labels[b]))
        opt.zero_grad()
        loss.backward()
        opt.step()
    hr, ndcg = evaluate(model)
    print(f"epoch {epoch} loss {loss.item():.4f} HR@10 {hr:.4f} NDCG@10 {ndcg:.4f}")
