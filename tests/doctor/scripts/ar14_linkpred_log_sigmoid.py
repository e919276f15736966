import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(12)
torch.manual_seed(12)

NUM_NODES = 500


def make_edges(num_nodes, num_edges=3000, groups=10):
    group = rng.integers(0, groups, num_nodes)
    src = rng.integers(0, num_nodes, num_edges * 10)
    dst = rng.integers(0, num_nodes, num_edges * 10)
    keep = (group[src] == group[dst]) | (rng.random(len(src)) < 0.05)
    edges = np.stack([src[keep], dst[keep]])[:, :num_edges]
    return edges


def negative_sample(num, num_nodes, existing):
    neg = rng.integers(0, num_nodes, (2, num * 2))
    keys = neg[0] * num_nodes + neg[1]
    ok = ~np.isin(keys, existing)
    return neg[:, ok][:, :num]


class LinkPredictor(nn.Module):
    def __init__(self, num_nodes, dim=64):
        super().__init__()
        self.emb = nn.Embedding(num_nodes, dim)
        self.lin = nn.Linear(dim, dim)

    def encode(self, edge_index):
        h = self.emb.weight
        src, dst = edge_index
        deg = torch.bincount(dst, minlength=h.size(0)).clamp(min=1).to(h.dtype).unsqueeze(-1)
        agg = torch.zeros_like(h).index_add_(0, dst, h[src]) / deg
        return self.lin(h + agg)

    def score(self, z, pairs):
        return (z[pairs[0]] * z[pairs[1]]).sum(-1)


def link_loss(pos_score, neg_score):
    pos_term = torch.log(torch.sigmoid(pos_score))
    neg_term = torch.log(torch.sigmoid(-neg_score))
    return -(pos_term.mean() + neg_term.mean())


def main():
    edges = make_edges(NUM_NODES)
    perm = rng.permutation(edges.shape[1])
    train_e, test_e = edges[:, perm[:2500]], edges[:, perm[2500:]]
    existing = edges[0] * NUM_NODES + edges[1]
    msg_index = torch.from_numpy(np.concatenate([train_e, train_e[::-1]], axis=1))
    model = LinkPredictor(NUM_NODES).half()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(10):
        model.train()
        z = model.encode(msg_index)
        pos = torch.from_numpy(train_e)
        neg = torch.from_numpy(negative_sample(pos.size(1), NUM_NODES, existing))
        loss = link_loss(model.score(z, pos), model.score(z, neg))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 3 == 0 or epoch == 9:
            with torch.no_grad():
                z = model.encode(msg_index)
                tp = model.score(z, torch.from_numpy(test_e)).float()
                tn = model.score(z, torch.from_numpy(negative_sample(tp.numel(), NUM_NODES, existing))).float()
                auc = (tp[:, None] > tn[None, :]).float().mean().item()
            print(f"epoch {epoch} loss {loss.item():.4f} test_auc {auc:.3f}")


if __name__ == "__main__":
    main()
