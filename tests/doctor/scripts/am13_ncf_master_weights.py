import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(13)

N_USERS, N_ITEMS, GMF_DIM, MLP_DIM = 2500, 4000, 16, 32


def ratings_frame(n=40000):
    df = pd.DataFrame({"user": rng.integers(0, N_USERS, n), "item": rng.integers(0, N_ITEMS, n)})
    affinity = np.sin(df["user"] * 0.013) * np.cos(df["item"] * 0.007)
    df["rating"] = np.clip(np.round(3 + 2 * affinity + rng.normal(0, 0.7, n)), 1, 5)
    df["liked"] = df["rating"] >= 4
    return df


class NeuMF(nn.Module):
    def __init__(self):
        super().__init__()
        self.gmf_user = nn.Embedding(N_USERS, GMF_DIM)
        self.gmf_item = nn.Embedding(N_ITEMS, GMF_DIM)
        self.mlp_user = nn.Embedding(N_USERS, MLP_DIM)
        self.mlp_item = nn.Embedding(N_ITEMS, MLP_DIM)
        self.mlp = nn.Sequential(nn.Linear(2 * MLP_DIM, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.predict = nn.Linear(GMF_DIM + 32, 1)
        for m in self.modules():
            if isinstance(m, nn.Embedding):
                nn.init.normal_(m.weight, std=0.01)

    def forward(self, u, i):
        gmf = self.gmf_user(u) * self.gmf_item(i)
        mlp = self.mlp(torch.cat([self.mlp_user(u), self.mlp_item(i)], -1))
        return self.predict(torch.cat([gmf, mlp], -1)).squeeze(-1)


class MasterWeightOptimizer:
    def __init__(self, model, lr):
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.master = [nn.Parameter(p.detach().clone().float()) for p in self.params]
        self.inner = torch.optim.Adagrad(self.master, lr=lr)

    def zero_grad(self):
        for p in self.params:
            p.grad = None
        self.inner.zero_grad()

    def step(self):
        for p, m in zip(self.params, self.master):
            m.grad = p.grad
        self.inner.step()
        with torch.no_grad():
            for p, m in zip(self.params, self.master):
                p.copy_(m)


df = ratings_frame()
u_t = torch.tensor(df["user"].to_numpy())
i_t = torch.tensor(df["item"].to_numpy())
y_t = torch.tensor(df["liked"].to_numpy(), dtype=torch.float32)

model = NeuMF().to(torch.bfloat16)
opt = MasterWeightOptimizer(model, lr=0.05)
for epoch in range(3):
    perm = torch.randperm(len(y_t))
    for s in range(0, len(perm), 1024):
        b = perm[s:s + 1024]
        loss = F.binary_cross_entropy_with_logits(model(u_t[b], i_t[b]).float(), y_t[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
