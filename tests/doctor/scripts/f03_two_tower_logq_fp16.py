"""Two-tower retrieval with in-batch sampled softmax and log-Q (popularity) correction.

Item sampling probability q(i) is estimated from the interaction log and kept as a
buffer on the model so it moves with it. Towers run in fp16.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(2)

N_USERS, N_ITEMS, D = 3000, 5000, 32

# long-tail interaction log (~250k events)
pop = 1.0 / np.arange(1, N_ITEMS + 1) ** 1.05
pop /= pop.sum()
n_events = 250_000
log_items = rng.choice(N_ITEMS, size=n_events, p=pop)
log_users = rng.integers(0, N_USERS, size=n_events)


class Tower(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.emb = nn.Embedding(n, d)
        self.mlp = nn.Sequential(nn.Linear(d, 64), nn.GELU(), nn.Linear(64, d))

    def forward(self, ids):
        return F.normalize(self.mlp(self.emb(ids)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, item_counts, temperature=0.07):
        super().__init__()
        self.user_tower = Tower(N_USERS, D)
        self.item_tower = Tower(N_ITEMS, D)
        self.temperature = temperature
        self.register_buffer("item_counts", torch.as_tensor(item_counts, dtype=torch.float32))

    def forward(self, users, items):
        u = self.user_tower(users)
        v = self.item_tower(items)
        logits = u @ v.T / self.temperature
        q = self.item_counts[items] / self.item_counts.sum()
        logits = logits - torch.log(q)[None, :]
        target = torch.arange(len(users))
        return F.cross_entropy(logits.float(), target)


counts = np.bincount(log_items, minlength=N_ITEMS) + 1
model = TwoTower(counts).half()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

B = 256
for step in range(60):
    idx = rng.integers(0, n_events, size=B)
    loss = model(torch.from_numpy(log_users[idx]), torch.from_numpy(log_items[idx]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step:3d} sampled-softmax loss {loss.item():.4f}")

# quick eval: hit-rate@50 on 500 held-out events
with torch.no_grad():
    all_items = model.item_tower(torch.arange(N_ITEMS)).float()
    idx = rng.integers(0, n_events, size=500)
    u = model.user_tower(torch.from_numpy(log_users[idx])).float()
    top = (u @ all_items.T).topk(50, dim=1).indices.numpy()
    hit = np.mean([log_items[i] in row for i, row in zip(idx, top)])
print(f"hit@50 = {hit:.3f}")
