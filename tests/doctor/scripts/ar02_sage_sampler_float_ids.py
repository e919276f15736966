import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)
torch.manual_seed(0)

NUM_NODES = 1000
NUM_CLASSES = 4
FANOUT = 8


def build_csr(num_nodes, avg_deg=6):
    src = rng.integers(0, num_nodes, num_nodes * avg_deg)
    dst = rng.integers(0, num_nodes, num_nodes * avg_deg)
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    indptr = np.zeros(num_nodes + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    indptr = np.cumsum(indptr)
    return indptr, dst.astype(np.int32)


def sample_neighbors(indptr, indices, seeds, fanout):
    out = np.full((len(seeds), fanout), -1.0)
    mask = np.zeros((len(seeds), fanout), dtype=bool)
    for i, s in enumerate(seeds):
        nbrs = indices[indptr[s]:indptr[s + 1]]
        if len(nbrs) == 0:
            continue
        take = rng.choice(nbrs, size=min(fanout, len(nbrs)), replace=False)
        out[i, :len(take)] = take
        mask[i, :len(take)] = True
    return out, mask


def collate(seeds, indptr, indices, labels):
    nbrs, mask = sample_neighbors(indptr, indices, seeds, FANOUT)
    nbrs = np.where(mask, nbrs, 0)
    return (torch.from_numpy(seeds), torch.from_numpy(nbrs),
            torch.from_numpy(mask), torch.from_numpy(labels[seeds]))


class SAGE(nn.Module):
    def __init__(self, num_nodes, dim, num_classes):
        super().__init__()
        self.node_emb = nn.Embedding(num_nodes, dim)
        self.lin_self = nn.Linear(dim, dim)
        self.lin_nbr = nn.Linear(dim, dim)
        self.cls = nn.Linear(dim, num_classes)

    def forward(self, seeds, nbrs, mask):
        h_self = self.node_emb(seeds)
        h_nbr = self.node_emb(nbrs)
        m = mask.unsqueeze(-1).to(h_nbr.dtype)
        agg = (h_nbr * m).sum(1) / m.sum(1).clamp(min=1.0)
        h = F.relu(self.lin_self(h_self) + self.lin_nbr(agg))
        return self.cls(h)


def main():
    indptr, indices = build_csr(NUM_NODES)
    labels = rng.integers(0, NUM_CLASSES, NUM_NODES)
    train_nodes = rng.permutation(NUM_NODES)[:800]
    model = SAGE(NUM_NODES, 64, NUM_CLASSES).to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for epoch in range(3):
        perm = rng.permutation(train_nodes)
        total = 0.0
        for start in range(0, len(perm), 128):
            seeds, nbrs, mask, y = collate(perm[start:start + 128], indptr, indices, labels)
            logits = model(seeds, nbrs.clamp(min=0), mask)
            loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / (len(perm) // 128 + 1):.4f}")


if __name__ == "__main__":
    main()
