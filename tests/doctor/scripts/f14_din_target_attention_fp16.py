"""Deep Interest Network: target attention over a padded behaviour sequence, fp16 model."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(14)

N_ITEMS, N_CATE, D, MAX_LEN = 3000, 30, 16, 20
item_cate = rng.integers(0, N_CATE, N_ITEMS)


def make_samples(n):
    seqs = np.zeros((n, MAX_LEN), dtype=np.int64)     # 0 = padding id
    lens = rng.integers(1, MAX_LEN + 1, n)
    fav = rng.integers(0, N_CATE, n)
    for r in range(n):
        pool = np.flatnonzero(item_cate == fav[r])
        seqs[r, :lens[r]] = rng.choice(pool, lens[r]) + 1
    target = rng.integers(1, N_ITEMS, n)
    label = (item_cate[target - 1] == fav).astype(np.float32)
    flip = rng.random(n) < 0.5
    target[flip] = np.array([rng.choice(np.flatnonzero(item_cate == f)) + 1 for f in fav[flip]])
    label[flip] = 1.0
    return torch.from_numpy(seqs), torch.from_numpy(target), torch.from_numpy(label)


class DIN(nn.Module):
    def __init__(self):
        super().__init__()
        self.item_emb = nn.Embedding(N_ITEMS + 1, D, padding_idx=0)
        self.att = nn.Sequential(nn.Linear(4 * D, 36), nn.Sigmoid(), nn.Linear(36, 1))
        self.mlp = nn.Sequential(nn.Linear(2 * D, 80), nn.PReLU(), nn.Linear(80, 1))

    def forward(self, seq, target):
        h = self.item_emb(seq)                       # (B, L, D)
        t = self.item_emb(target).unsqueeze(1).expand_as(h)
        a = self.att(torch.cat([h, t, h - t, h * t], -1)).squeeze(-1)
        a = a.masked_fill(seq == 0, -1e9)
        w = torch.softmax(a, dim=-1)
        interest = (w.unsqueeze(-1) * h).sum(1)
        return self.mlp(torch.cat([interest, t[:, 0]], -1)).squeeze(-1)


model = DIN().half()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
seqs, targets, labels = make_samples(6000)
for epoch in range(3):
    perm = torch.randperm(len(seqs))
    for s in range(0, len(seqs), 256):
        b = perm[s:s + 256]
        logits = model(seqs[b], targets[b])
        loss = F.binary_cross_entropy_with_logits(logits.float(), labels[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
