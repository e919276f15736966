"""Two-tower retrieval, fp16 towers, in-batch sampled softmax with log-Q correction and
accidental-hit masking; recall@k / NDCG@k on held-out interactions in NumPy."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(12)

N_U, N_I, D = 2000, 4000, 32
pop = 1.0 / np.arange(1, N_I + 1) ** 0.9
pop /= pop.sum()
user_taste = rng.integers(0, 25, N_U)
n_events = 120_000
events_u = rng.integers(0, N_U, n_events)
taste_items = (user_taste[events_u] * 160 + rng.integers(0, 160, n_events)) % N_I
popular_items = rng.choice(N_I, size=n_events, p=pop)
events_i = np.where(rng.random(n_events) < 0.7, taste_items, popular_items)
split = 110_000

# sampling probability of each item in the training stream, kept in float32
counts = np.bincount(events_i[:split], minlength=N_I).astype(np.float64) + 1.0
log_q = torch.tensor(np.log(counts / counts.sum()), dtype=torch.float32)


class Tower(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.emb = nn.Embedding(n, D)
        nn.init.normal_(self.emb.weight, std=0.1)
        self.proj = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, D))

    def forward(self, ids):
        return F.normalize(self.proj(self.emb(ids)), dim=-1)


user_tower, item_tower = Tower(N_U).half(), Tower(N_I).half()
params = list(user_tower.parameters()) + list(item_tower.parameters())
opt = torch.optim.SGD(params, lr=0.5, momentum=0.9)
TEMP = 0.1

for step in range(150):
    b = rng.integers(0, split, 512)
    u_ids, i_ids = torch.from_numpy(events_u[b]), torch.from_numpy(events_i[b])
    logits = (user_tower(u_ids) @ item_tower(i_ids).T).float() / TEMP
    logits = logits - log_q[i_ids][None, :]
    accidental = (i_ids[None, :] == i_ids[:, None]) & ~torch.eye(len(b), dtype=torch.bool)
    logits = logits.masked_fill(accidental, torch.finfo(logits.dtype).min)
    loss = F.cross_entropy(logits, torch.arange(len(b)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step:3d} loss {loss.item():.4f}")

# evaluation on the held-out tail of the stream
with torch.no_grad():
    item_vecs = item_tower(torch.arange(N_I)).float().numpy()
    test_u = events_u[split:split + 2000]
    test_i = events_i[split:split + 2000]
    user_vecs = user_tower(torch.from_numpy(test_u)).float().numpy()
scores = user_vecs @ item_vecs.T
K = 50
top = np.argsort(-scores, axis=1)[:, :K]
hit_pos = np.argmax(top == test_i[:, None], axis=1)
hit = (top == test_i[:, None]).any(1)
ndcg = np.where(hit, 1.0 / np.log2(hit_pos + 2), 0.0)
print(f"recall@{K} {hit.mean():.4f}  ndcg@{K} {ndcg.mean():.4f}")
