import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)

N_USERS, N_ITEMS, N_FEAT = 500, 300, 16
EMB = 32


class Tower(nn.Module):
    def __init__(self, n_ids, n_feat, dim):
        super().__init__()
        self.id_emb = nn.Embedding(n_ids, dim)
        self.mlp = nn.Sequential(nn.Linear(dim + n_feat, 64), nn.ReLU(), nn.Linear(64, dim))

    def forward(self, ids, feats):
        h = torch.cat([self.id_emb(ids), feats], dim=-1)
        return F.normalize(self.mlp(h), dim=-1)


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_tower = Tower(N_USERS, N_FEAT, EMB)
        self.item_tower = Tower(N_ITEMS, N_FEAT, EMB)
        self.log_temp = nn.Parameter(torch.tensor(-3.0))

    def forward(self, uid, ufeat, iid, ifeat):
        return self.user_tower(uid, ufeat), self.item_tower(iid, ifeat)


def in_batch_softmax_loss(u, v, item_ids, log_temp):
    logits = u @ v.t() / log_temp.exp()
    same_item = item_ids.unsqueeze(0) == item_ids.unsqueeze(1)
    eye = torch.eye(len(item_ids), dtype=torch.bool)
    logits = logits.masked_fill(same_item & ~eye, -1e9)
    labels = torch.arange(len(item_ids))
    return F.cross_entropy(logits, labels)


def sample_batch(user_feat, item_feat, pop, bs=128):
    iid = torch.multinomial(pop, bs, replacement=True)
    uid = (iid * 7 + torch.randint(0, 5, (bs,))) % N_USERS
    return uid, user_feat[uid], iid, item_feat[iid]


def recall_at_k(model, user_feat, item_feat, pop, k=10):
    hits = []
    with torch.no_grad():
        all_items = model.item_tower(torch.arange(N_ITEMS), item_feat)
        for _ in range(5):
            uid, uf, iid, _ = sample_batch(user_feat, item_feat, pop)
            scores = model.user_tower(uid, uf) @ all_items.t()
            topk = scores.topk(k, dim=1).indices
            hits.append((topk == iid.unsqueeze(1)).any(1).float())
    return torch.cat(hits).mean().item()


def main():
    user_feat = torch.randn(N_USERS, N_FEAT)
    item_feat = torch.randn(N_ITEMS, N_FEAT)
    pop = 1.0 / torch.arange(1, N_ITEMS + 1).float() ** 0.8
    model = TwoTower()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-5)
    for step in range(200):
        uid, uf, iid, itf = sample_batch(user_feat, item_feat, pop)
        with torch.autocast("cpu", dtype=torch.float16):
            u, v = model(uid, uf, iid, itf)
            loss = in_batch_softmax_loss(u, v, iid, model.log_temp)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    print(f"recall@10 {recall_at_k(model, user_feat, item_feat, pop):.3f}")


if __name__ == "__main__":
    main()
