"""Graph classification (GIN-style message passing) on a batch of small random molecules,
trained with HF accelerate in bf16 mixed precision on the CPU. Graphs are batched the
PyG way: concatenated node tensors + a `batch` vector; pooling is a segment sum."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
N_ATOM_TYPES, HIDDEN, N_CLASSES = 9, 64, 2


def random_molecule(g):
    n = int(torch.randint(6, 20, (1,), generator=g))
    atoms = torch.randint(0, N_ATOM_TYPES, (n,), generator=g)
    # chain backbone + a few rings
    src = list(range(n - 1)); dst = list(range(1, n))
    for _ in range(n // 4):
        a, b = torch.randint(0, n, (2,), generator=g).tolist()
        if a != b:
            src.append(a); dst.append(b)
    ei = torch.tensor([src + dst, dst + src], dtype=torch.long)
    label = int((atoms == 3).sum() > (atoms == 5).sum())  # toy property
    return atoms, ei, label


class MolDataset(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.items = [random_molecule(g) for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    atoms, eis, batch_vec, labels, offset = [], [], [], [], 0
    for gi, (a, ei, y) in enumerate(batch):
        atoms.append(a)
        eis.append(ei + offset)
        batch_vec.append(torch.full((a.numel(),), gi, dtype=torch.long))
        labels.append(y)
        offset += a.numel()
    return {"atoms": torch.cat(atoms), "edge_index": torch.cat(eis, 1),
            "batch": torch.cat(batch_vec), "y": torch.tensor(labels), "num_graphs": len(batch)}


class GINLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.eps = nn.Parameter(torch.zeros(1))
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, h, edge_index):
        src, dst = edge_index
        agg = torch.zeros_like(h).index_add_(0, dst, h[src])
        return self.mlp((1 + self.eps) * h + agg)


class GIN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(N_ATOM_TYPES, HIDDEN)
        self.layers = nn.ModuleList([GINLayer(HIDDEN) for _ in range(3)])
        self.head = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, N_CLASSES))

    def readout(self, h, batch, num_graphs):
        pooled = torch.zeros(num_graphs, h.size(1), device=h.device)
        pooled.index_add_(0, batch, h)
        return pooled

    def forward(self, atoms, edge_index, batch, num_graphs):
        h = self.embed(atoms)
        for layer in self.layers:
            h = F.relu(layer(h, edge_index))
        return self.head(self.readout(h, batch, num_graphs))


def main():
    t0 = time.time()
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    train_dl = DataLoader(MolDataset(512), batch_size=32, shuffle=True, collate_fn=collate)
    model = GIN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    model, opt, train_dl = accelerator.prepare(model, opt, train_dl)

    for epoch in range(3):
        model.train()
        total = 0.0
        for batch in train_dl:
            logits = model(batch["atoms"], batch["edge_index"], batch["batch"], batch["num_graphs"])
            loss = F.cross_entropy(logits, batch["y"])
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
            total += loss.item()
        accelerator.print(f"epoch {epoch} loss {total / len(train_dl):.4f}")
    accelerator.print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
