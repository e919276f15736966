import math
import tempfile
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
CUTOFF = 5.0


def random_molecules(n_mol, min_atoms=6, max_atoms=12):
    mols = []
    for _ in range(n_mol):
        n = torch.randint(min_atoms, max_atoms + 1, ()).item()
        z = torch.randint(1, 10, (n,))
        pos = torch.randn(n, 3) * 1.4
        d = torch.cdist(pos, pos)
        energy = (z.float().sum() * -0.5 + (1.0 / (d + torch.eye(n))).triu(1).sum() * 0.3).item()
        mols.append((z, pos, energy))
    return mols


def collate(mols):
    zs, poss, batch, energies = [], [], [], []
    for i, (z, pos, e) in enumerate(mols):
        zs.append(z)
        poss.append(pos)
        batch.append(torch.full((len(z),), i, dtype=torch.long))
        energies.append(e)
    z = torch.cat(zs)
    pos = torch.cat(poss)
    batch = torch.cat(batch)
    same = batch[:, None] == batch[None, :]
    dist = torch.cdist(pos, pos)
    adj = same & (dist < CUTOFF) & ~torch.eye(len(z), dtype=torch.bool)
    src, dst = adj.nonzero(as_tuple=True)
    return z, pos, batch, torch.stack([src, dst]), torch.tensor(energies)


class GaussianRBF(nn.Module):
    def __init__(self, n_rbf=32, cutoff=CUTOFF):
        super().__init__()
        self.register_buffer("centers", torch.linspace(0.0, cutoff, n_rbf))
        self.gamma = 0.5 / (cutoff / n_rbf) ** 2

    def forward(self, d):
        return torch.exp(-self.gamma * (d[:, None] - self.centers) ** 2)


class CFConv(nn.Module):
    def __init__(self, hidden, n_rbf):
        super().__init__()
        self.hidden = hidden
        self.filter = nn.Sequential(nn.Linear(n_rbf, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.in2f = nn.Linear(hidden, hidden, bias=False)
        self.f2out = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden))

    def forward(self, h, rbf, d, edge_index):
        src, dst = edge_index
        envelope = 0.5 * (torch.cos(d * math.pi / CUTOFF) + 1.0)
        w = self.filter(rbf * envelope[:, None])
        msg = self.in2f(h)[src] * w
        agg = torch.zeros(h.shape[0], self.hidden, device=h.device)
        agg.index_add_(0, dst, msg)
        return self.f2out(agg)


class SchNet(nn.Module):
    def __init__(self, hidden=64, n_rbf=32, n_interactions=3):
        super().__init__()
        self.embed = nn.Embedding(10, hidden)
        self.rbf = GaussianRBF(n_rbf)
        self.interactions = nn.ModuleList([CFConv(hidden, n_rbf) for _ in range(n_interactions)])
        self.readout = nn.Sequential(nn.Linear(hidden, hidden // 2), nn.SiLU(), nn.Linear(hidden // 2, 1))

    def forward(self, z, pos, batch, edge_index, n_mol):
        src, dst = edge_index
        d = (pos[src] - pos[dst]).norm(dim=-1)
        rbf = self.rbf(d)
        h = self.embed(z)
        for block in self.interactions:
            h = h + block(h, rbf, d, edge_index)
        e_atom = self.readout(h).squeeze(-1)
        return torch.zeros(n_mol, dtype=e_atom.dtype).index_add_(0, batch, e_atom)


def main():
    train = random_molecules(96)
    energies = torch.tensor([m[2] for m in train])
    mean, std = energies.mean(), energies.std()
    model = SchNet()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    out_dir = tempfile.mkdtemp(prefix="schnet_")

    for epoch in range(4):
        total = 0.0
        for i in range(0, len(train), 16):
            z, pos, batch, edge_index, e = collate(train[i:i + 16])
            with torch.autocast("cpu", dtype=torch.bfloat16):
                pred = model(z, pos, batch, edge_index, n_mol=len(e))
            loss = F.mse_loss(pred.float(), (e - mean) / std)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} mse {total / 6:.4f}")
    torch.save({"model": model.state_dict(), "mean": mean, "std": std}, os.path.join(out_dir, "schnet.pt"))


if __name__ == "__main__":
    main()
