"""Matrix factorisation with BPR loss and uniform negative sampling, fp16 weights."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(3)

N_USERS, N_ITEMS, DIM = 1000, 3000, 48

# implicit feedback: each user interacts with items of 'their' cluster mostly
user_cluster = rng.integers(0, 20, N_USERS)
pairs = []
for u in range(N_USERS):
    k = rng.integers(5, 30)
    items = (user_cluster[u] * 150 + rng.integers(0, 150, k)) % N_ITEMS
    pairs.extend((u, int(i)) for i in items)
pairs = np.array(pairs)
user_pos = {}
for u, i in pairs:
    user_pos.setdefault(int(u), set()).add(int(i))


def sample_negatives(users):
    neg = rng.integers(0, N_ITEMS, len(users))
    for j, u in enumerate(users):
        while neg[j] in user_pos[int(u)]:
            neg[j] = rng.integers(0, N_ITEMS)
    return neg


class MF(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(N_USERS, DIM)
        self.item = nn.Embedding(N_ITEMS, DIM)

    def score(self, u, i):
        return (self.user(u) * self.item(i)).sum(-1)


def bpr_loss(pos, neg):
    return -torch.log(torch.sigmoid(pos - neg)).mean()


model = MF().half()
opt = torch.optim.SGD(model.parameters(), lr=0.05)

for epoch in range(4):
    perm = rng.permutation(len(pairs))
    tot, nb = 0.0, 0
    for s in range(0, len(pairs), 1024):
        b = pairs[perm[s:s + 1024]]
        u = torch.from_numpy(b[:, 0])
        pos = torch.from_numpy(b[:, 1])
        neg = torch.from_numpy(sample_negatives(b[:, 0]))
        loss = bpr_loss(model.score(u, pos), model.score(u, neg))
        loss = loss + 1e-4 * (model.user(u).pow(2).sum() + model.item(pos).pow(2).sum()) / len(u)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item()
        nb += 1
    print(f"epoch {epoch} bpr {tot / nb:.4f}")

# AUC on sampled pairs
with torch.no_grad():
    b = pairs[rng.integers(0, len(pairs), 2000)]
    u = torch.from_numpy(b[:, 0])
    sp = model.score(u, torch.from_numpy(b[:, 1])).float().numpy()
    sn = model.score(u, torch.from_numpy(sample_negatives(b[:, 0]))).float().numpy()
print("sampled AUC:", float(np.mean(sp > sn)))
