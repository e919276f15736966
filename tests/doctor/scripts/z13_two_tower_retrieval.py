import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

N_USERS, N_ITEMS, DIM = 2000, 3000, 32


class Interactions(Dataset):
    def __init__(self, n=20000, seed=0):
        rng = np.random.default_rng(seed)
        u_f = rng.normal(size=(N_USERS, 8))
        i_f = rng.normal(size=(N_ITEMS, 8))
        self.users = rng.integers(0, N_USERS, n)
        scores = (u_f[self.users, None, :] * i_f[None, :200, :]).sum(-1)
        self.items = scores.argmax(1) + rng.integers(0, 15, n) * 200 % N_ITEMS

    def __len__(self):
        return len(self.users)

    def __getitem__(self, i):
        return int(self.users[i]), int(self.items[i])


def collate(batch, n_neg=4):
    users = torch.tensor([b[0] for b in batch])
    pos = torch.tensor([b[1] for b in batch])
    neg = torch.randint(0, N_ITEMS, (len(batch), n_neg))
    return users, pos, neg


class Tower(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        nn.init.normal_(self.emb.weight, std=0.1)

    def forward(self, ids):
        return F.normalize(self.mlp(self.emb(ids)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_tower = Tower(N_USERS, DIM)
        self.item_tower = Tower(N_ITEMS, DIM)
        self.logit_scale = nn.Parameter(torch.tensor(10.0))

    def forward(self, users, pos, neg):
        u = self.user_tower(users)
        items = self.item_tower(torch.cat([pos[:, None], neg], dim=1))
        return self.logit_scale * torch.einsum("bd,bkd->bk", u, items)


@torch.no_grad()
def recall_at_k(model, ds, k=50, n=300):
    users = torch.tensor(ds.users[:n])
    target = torch.tensor(ds.items[:n])
    u = model.user_tower(users).float()
    all_items = model.item_tower(torch.arange(N_ITEMS)).float()
    topk = (u @ all_items.T).topk(k, dim=1).indices
    return (topk == target[:, None]).any(1).float().mean().item()


def main():
    torch.manual_seed(0)
    ds = Interactions()
    loader = DataLoader(ds, batch_size=256, shuffle=True, collate_fn=collate)
    model = TwoTower().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        total, batches = 0.0, 0
        for step, (users, pos, neg) in enumerate(loader):
            logits = model(users, pos, neg).float()
            labels = torch.zeros(len(users), dtype=torch.long)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.item()
            batches += 1
            if step % 25 == 0:
                print(f"epoch {epoch} step {step:3d} loss {loss.item():.4f}")
        print(f"epoch {epoch} mean loss {total / batches:.4f} recall@50 {recall_at_k(model, ds):.3f}")


if __name__ == "__main__":
    main()
