import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(7)

N_USERS, N_ITEMS, D, B = 4000, 6000, 32, 256

N_CLUSTERS = 200
per_cluster = N_ITEMS // N_CLUSTERS
within = 1.0 / np.arange(1, per_cluster + 1) ** 1.1
within /= within.sum()
users = rng.integers(0, N_USERS, 40000)
items = (users % N_CLUSTERS) * per_cluster + rng.choice(per_cluster, 40000, p=within)
item_counts = torch.from_numpy(np.bincount(items, minlength=N_ITEMS)).float()


class Tower(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.emb = nn.Embedding(n, D)
        self.mlp = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, D))

    def forward(self, ids):
        return F.normalize(self.mlp(self.emb(ids)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, temperature=0.07):
        super().__init__()
        self.user_tower = Tower(N_USERS)
        self.item_tower = Tower(N_ITEMS)
        self.temperature = temperature
        self.register_buffer("log_q", torch.zeros(N_ITEMS), persistent=False)

    @torch.no_grad()
    def set_item_frequencies(self, counts):
        q = (counts + 1.0) / (counts.sum() + N_ITEMS)
        self.log_q.copy_(q.log())

    def forward(self, u, i):
        uv, iv = self.user_tower(u), self.item_tower(i)
        logits = uv @ iv.T / self.temperature
        logits = logits - self.log_q[i][None, :]
        return F.cross_entropy(logits, torch.arange(len(u)))


def train(model, steps, lr=3e-3, tag=""):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for step in range(steps):
        b = torch.from_numpy(rng.integers(0, len(users), B))
        loss = model(torch.from_numpy(users)[b], torch.from_numpy(items)[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"{tag} step {step} in-batch loss (logQ corrected) {loss.item():.4f}")
    return model


with tempfile.TemporaryDirectory() as ckpt_dir:
    path = os.path.join(ckpt_dir, "two_tower.pt")
    model = TwoTower()
    model.set_item_frequencies(item_counts)
    model = train(model, 60, tag="pretrain")
    torch.save(model.state_dict(), path)
    del model

    with torch.device("meta"):
        resumed = TwoTower()
    resumed.load_state_dict(torch.load(path, map_location="cpu"), assign=True)
    print("restored", sum(p.numel() for p in resumed.parameters()), "parameters")
    resumed = train(resumed, 60, lr=1e-3, tag="finetune")
    print("done")
