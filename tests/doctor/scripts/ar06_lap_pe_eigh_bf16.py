import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)


def random_molecule(max_atoms=24, num_atom_types=10):
    n = int(torch.randint(8, max_atoms, (1,)))
    src = torch.arange(1, n)
    dst = torch.randint(0, n, (n - 1,)) % torch.clamp(src, min=1)
    extra = torch.randint(0, n, (2, n // 4))
    edge_index = torch.cat([torch.stack([src, dst]), extra], dim=1)
    edge_index = torch.cat([edge_index, edge_index.flip(0)], dim=1)
    atoms = torch.randint(0, num_atom_types, (n,))
    target = (atoms == 3).float().sum() / n + 0.1 * edge_index.size(1) / n
    return atoms, edge_index, target


class LapPE(nn.Module):
    def __init__(self, k, dim):
        super().__init__()
        self.k = k
        self.proj = nn.Linear(k, dim)

    def forward(self, num_nodes, edge_index, dtype):
        adj = torch.zeros(num_nodes, num_nodes, dtype=dtype)
        adj[edge_index[0], edge_index[1]] = 1.0
        deg = adj.sum(1).clamp(min=1.0)
        dinv = deg.pow(-0.5)
        lap = torch.eye(num_nodes, dtype=dtype) - dinv[:, None] * adj * dinv[None, :]
        evals, evecs = torch.linalg.eigh(lap)
        pe = evecs[:, 1:self.k + 1]
        if pe.size(1) < self.k:
            pe = F.pad(pe, (0, self.k - pe.size(1)))
        sign = torch.randint(0, 2, (1, self.k)).to(dtype) * 2 - 1
        return self.proj(pe * sign)


class GINLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.eps = nn.Parameter(torch.zeros(1))

    def forward(self, h, edge_index):
        agg = torch.zeros_like(h).index_add_(0, edge_index[1], h[edge_index[0]])
        return F.relu(self.mlp((1 + self.eps) * h + agg))


class MolNet(nn.Module):
    def __init__(self, num_atom_types=10, dim=64, k=8):
        super().__init__()
        self.atom_emb = nn.Embedding(num_atom_types, dim)
        self.pe = LapPE(k, dim)
        self.layers = nn.ModuleList([GINLayer(dim) for _ in range(3)])
        self.head = nn.Linear(dim, 1)

    def forward(self, atoms, edge_index):
        h = self.atom_emb(atoms)
        h = h + self.pe(atoms.size(0), edge_index, h.dtype)
        for layer in self.layers:
            h = h + layer(h, edge_index)
        return self.head(h.mean(0)).squeeze(-1)


def main():
    data = [random_molecule() for _ in range(64)]
    model = MolNet().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for epoch in range(4):
        total = 0.0
        for atoms, edge_index, target in data:
            pred = model(atoms, edge_index)
            loss = F.mse_loss(pred.float(), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} mse {total / len(data):.4f}")


if __name__ == "__main__":
    main()
