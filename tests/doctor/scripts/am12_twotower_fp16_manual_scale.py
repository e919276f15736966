import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(12)

N_USERS, N_ITEMS, N_CATS, D, B = 2000, 3000, 30, 32, 256
TEMPERATURE = 0.05

item_cat = rng.integers(0, N_CATS, N_ITEMS)
user_cat = rng.integers(0, N_CATS, N_USERS)


def sample_batch():
    u = rng.integers(0, N_USERS, B)
    items = np.array([rng.choice(np.flatnonzero(item_cat == c)) for c in user_cat[u]])
    frame = pd.DataFrame({"user": u, "item": items, "item_cat": item_cat[items]})
    return (torch.tensor(frame["user"].to_numpy()), torch.tensor(frame["item"].to_numpy()),
            torch.tensor(frame["item_cat"].to_numpy()))


class UserTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(N_USERS, D)
        self.mlp = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, D))

    def forward(self, u):
        return F.normalize(self.mlp(self.emb(u)), dim=-1)


class ItemTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(N_ITEMS, D)
        self.cat = nn.Embedding(N_CATS, D)
        self.mlp = nn.Sequential(nn.Linear(2 * D, 64), nn.ReLU(), nn.Linear(64, D))

    def forward(self, i, c):
        return F.normalize(self.mlp(torch.cat([self.emb(i), self.cat(c)], -1)), dim=-1)


user_tower, item_tower = UserTower().half(), ItemTower().half()
params = list(user_tower.parameters()) + list(item_tower.parameters())
master = [p.detach().float().clone() for p in params]
opt = torch.optim.Adam(master, lr=3e-3)

loss_scale, growth_interval = 1024.0, 8
for step in range(100):
    u, i, c = sample_batch()
    logits = user_tower(u) @ item_tower(i, c).T / TEMPERATURE
    loss = F.cross_entropy(logits.float(), torch.arange(B))
    for p in params:
        p.grad = None
    (loss * loss_scale).backward()
    for p, m in zip(params, master):
        m.grad = p.grad.float() / loss_scale
    opt.step()
    with torch.no_grad():
        for p, m in zip(params, master):
            p.copy_(m)
    if (step + 1) % growth_interval == 0:
        loss_scale *= 2.0
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} scale {loss_scale:.0f}")

with torch.no_grad():
    u, i, c = sample_batch()
    logits = (user_tower(u) @ item_tower(i, c).T).float()
    recall = (logits.topk(10, dim=-1).indices == torch.arange(B)[:, None]).any(-1).float().mean()
print(f"final loss {loss.item():.4f}  in-batch recall@10 {recall.item():.4f}")
