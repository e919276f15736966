import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(6)

N_USERS, N_ITEMS, N_TOPICS, D = 2000, 5000, 50, 48
N_NEG, TEMPERATURE = 256, 0.02


item_topic = rng.integers(0, N_TOPICS, N_ITEMS)


def make_log(n=20000):
    user_pref = rng.integers(0, N_TOPICS, N_USERS)
    users = rng.integers(0, N_USERS, n)
    items = np.empty(n, dtype=np.int64)
    for t in range(N_TOPICS):
        pool = np.flatnonzero(item_topic == t)
        m = user_pref[users] == t
        items[m] = rng.choice(pool, m.sum())
    df = pd.DataFrame({"user": users, "item": items})
    df["age_bucket"] = rng.integers(0, 8, n)
    df["country"] = pd.Categorical(rng.choice(["de", "fr", "us", "br", "jp"], n))
    return df


class UserTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(N_USERS, D)
        self.age = nn.Embedding(8, D)
        self.country = nn.Embedding(5, D)
        self.mlp = nn.Sequential(nn.Linear(D, 2 * D), nn.ReLU(), nn.Linear(2 * D, D))

    def forward(self, u, age, country):
        return F.normalize(self.mlp(self.user(u) + self.age(age) + self.country(country)), dim=-1)


class ItemTable(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(N_ITEMS, D)
        self.topic = nn.Embedding(N_TOPICS, D)
        self.register_buffer("item_topic", torch.from_numpy(item_topic))

    def forward(self, ids):
        return F.normalize(self.emb(ids) + self.topic(self.item_topic[ids]), dim=-1)


def sampled_softmax_loss(u, cand_v):
    logits = u @ cand_v.T / TEMPERATURE
    e = torch.exp(logits)
    prob_pos = e.diagonal() / e.sum(-1)
    return -torch.log(prob_pos).mean()


df = make_log()
u_t = torch.tensor(df["user"].to_numpy())
i_t = torch.tensor(df["item"].to_numpy())
age_t = torch.tensor(df["age_bucket"].to_numpy())
cty_t = torch.tensor(df["country"].cat.codes.to_numpy().astype(np.int64))

user_tower, items = UserTower(), ItemTable()
opt = torch.optim.Adam(list(user_tower.parameters()) + list(items.parameters()), lr=1e-2)
for epoch in range(3):
    perm = torch.randperm(len(u_t))
    for step, s in enumerate(range(0, len(perm), 256)):
        b = perm[s:s + 256]
        negs = torch.randint(0, N_ITEMS, (N_NEG,))
        with torch.autocast("cpu", dtype=torch.float16):
            u = user_tower(u_t[b], age_t[b], cty_t[b])
            loss = sampled_softmax_loss(u, items(torch.cat([i_t[b], negs])))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"epoch {epoch} step {step} sampled softmax loss {loss.item():.4f}")
