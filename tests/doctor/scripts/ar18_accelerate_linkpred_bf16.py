import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator

rng = np.random.default_rng(16)
torch.manual_seed(16)

NUM_NODES = 600


def build_csr_graph(avg_deg=5, groups=12):
    group = rng.integers(0, groups, NUM_NODES)
    src = rng.integers(0, NUM_NODES, NUM_NODES * avg_deg * 15)
    dst = rng.integers(0, NUM_NODES, NUM_NODES * avg_deg * 15)
    keep = (group[src] == group[dst]) & (src != dst)
    src, dst = src[keep][:NUM_NODES * avg_deg], dst[keep][:NUM_NODES * avg_deg]
    order = np.argsort(src, kind="stable")
    indptr = np.searchsorted(src[order], np.arange(NUM_NODES + 1)).astype(np.int32)
    return indptr, dst[order].astype(np.int32), np.stack([src, dst])


class EdgeDataset(torch.utils.data.Dataset):
    def __init__(self, edges):
        self.edges = edges

    def __len__(self):
        return self.edges.shape[1]

    def __getitem__(self, i):
        return torch.from_numpy(self.edges[:, i].astype(np.int64))


class SparseEncoder(nn.Module):
    def __init__(self, indptr, indices, dim=48):
        super().__init__()
        crow = torch.from_numpy(indptr).long()
        col = torch.from_numpy(indices).long()
        deg = (crow[1:] - crow[:-1]).float().clamp(min=1.0)
        vals = torch.repeat_interleave(deg.reciprocal(), crow[1:] - crow[:-1])
        row = torch.repeat_interleave(torch.arange(NUM_NODES), crow[1:] - crow[:-1])
        self.register_buffer("adj", torch.sparse_coo_tensor(torch.stack([row, col]), vals, (NUM_NODES, NUM_NODES)).coalesce())
        self.emb = nn.Embedding(NUM_NODES, dim)
        nn.init.normal_(self.emb.weight, std=0.1)
        self.lin1 = nn.Linear(dim, dim)
        self.lin2 = nn.Linear(dim, dim)

    def propagate(self, h):
        with torch.autocast("cpu", enabled=False):
            return torch.sparse.mm(self.adj, h.float()).to(h.dtype)

    def forward(self):
        h = self.emb.weight
        h = F.relu(self.lin1(h + self.propagate(h)))
        return self.lin2(h + self.propagate(h))


def main():
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    indptr, indices, edges = build_csr_graph()
    perm = rng.permutation(edges.shape[1])
    train_e, val_e = edges[:, perm[:2400]], edges[:, perm[2400:]]
    model = SparseEncoder(indptr, indices)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3)
    loader = torch.utils.data.DataLoader(EdgeDataset(train_e), batch_size=256, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(4):
        model.train()
        total = 0.0
        for pos in loader:
            pos = pos.t()
            neg = torch.stack([pos[0], torch.randint(0, NUM_NODES, (pos.size(1),))])
            z = model()
            scores = torch.cat([(z[pos[0]] * z[pos[1]]).sum(-1), (z[neg[0]] * z[neg[1]]).sum(-1)])
            labels = torch.cat([torch.ones(pos.size(1)), torch.zeros(neg.size(1))])
            loss = F.binary_cross_entropy_with_logits(scores.float(), labels)
            opt.zero_grad()
            accelerator.backward(loss)
            opt.step()
            total += loss.item()
        model.eval()
        with torch.no_grad(), accelerator.autocast():
            z = model().float()
            vp = torch.from_numpy(val_e.astype(np.int64))
            vn = torch.stack([vp[0], torch.randint(0, NUM_NODES, (vp.size(1),))])
            acc = ((z[vp[0]] * z[vp[1]]).sum(-1) > (z[vn[0]] * z[vn[1]]).sum(-1)).float().mean().item()
        accelerator.print(f"epoch {epoch} loss {total / len(loader):.4f} val_rank_acc {acc:.3f}")


if __name__ == "__main__":
    main()
