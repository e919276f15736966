import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(14)
torch.manual_seed(14)

NUM_USERS, NUM_ITEMS = 300, 400


def interaction_graph(num_edges=4000):
    user_taste = rng.integers(0, 8, NUM_USERS)
    item_cat = rng.integers(0, 8, NUM_ITEMS)
    u = rng.integers(0, NUM_USERS, num_edges * 4)
    i = rng.integers(0, NUM_ITEMS, num_edges * 4)
    keep = (user_taste[u] == item_cat[i]) | (rng.random(len(u)) < 0.1)
    return np.stack([u[keep], i[keep]])[:, :num_edges].astype(np.int32)


class BipartiteEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.user_emb = nn.Embedding(NUM_USERS, dim)
        self.item_emb = nn.Embedding(NUM_ITEMS, dim)
        nn.init.normal_(self.user_emb.weight, std=0.1)
        nn.init.normal_(self.item_emb.weight, std=0.1)
        self.mix = nn.Linear(dim, dim)

    def forward(self, edges):
        u, i = edges.long()
        hu, hi = self.user_emb.weight, self.item_emb.weight
        deg_u = torch.bincount(u, minlength=NUM_USERS).clamp(min=1).to(hu.dtype).unsqueeze(-1)
        deg_i = torch.bincount(i, minlength=NUM_ITEMS).clamp(min=1).to(hi.dtype).unsqueeze(-1)
        zu = hu + torch.zeros_like(hu).index_add_(0, u, hi[i]) / deg_u
        zi = hi + torch.zeros_like(hi).index_add_(0, i, hu[u]) / deg_i
        return self.mix(zu), zi

    @staticmethod
    def score(zu, zi, pairs):
        return (zu[pairs[0]] * zi[pairs[1]]).sum(-1)


def main():
    edges = interaction_graph()
    perm = rng.permutation(edges.shape[1])
    train_e, val_e = edges[:, perm[:3200]], edges[:, perm[3200:]]
    model = BipartiteEncoder().half()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    msg_edges = torch.from_numpy(train_e)
    for epoch in range(4):
        total = 0.0
        order = rng.permutation(train_e.shape[1])
        for start in range(0, len(order), 512):
            batch = train_e[:, order[start:start + 512]]
            pos = torch.from_numpy(batch).long()
            neg = torch.stack([pos[0], torch.randint(0, NUM_ITEMS, (pos.size(1),))])
            zu, zi = model(msg_edges[:, :1500])
            scores = torch.cat([model.score(zu, zi, pos), model.score(zu, zi, neg)]).float()
            labels = torch.cat([torch.ones(pos.size(1)), torch.zeros(neg.size(1))])
            loss = F.binary_cross_entropy_with_logits(scores, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        with torch.no_grad():
            zu, zi = model(msg_edges)
            vp = torch.from_numpy(val_e).long()
            vn = torch.stack([vp[0], torch.randint(0, NUM_ITEMS, (vp.size(1),))])
            hits = (model.score(zu, zi, vp) > model.score(zu, zi, vn)).float().mean().item()
        print(f"epoch {epoch} loss {total / 7:.4f} val_pairwise_acc {hits:.3f}")


if __name__ == "__main__":
    main()
