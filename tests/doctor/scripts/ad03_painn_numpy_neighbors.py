import tempfile
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)
rng = np.random.default_rng(2)
CUTOFF = 4.5


def make_dataset(n_mol):
    data = []
    for _ in range(n_mol):
        n = int(rng.integers(5, 11))
        z = rng.integers(1, 9, size=n)
        pos = rng.normal(scale=1.3, size=(n, 3)).astype(np.float32)
        dip = (pos * (z[:, None] - z.mean())).sum(0) * 0.1
        data.append((z, pos, np.linalg.norm(dip)))
    return data


def neighbor_list(pos, cutoff):
    d = np.linalg.norm(pos[:, None] - pos[None], axis=-1)
    src, dst = np.nonzero((d < cutoff) & (d > 0))
    return np.stack([src, dst]).astype(np.int32)


def collate(samples):
    z, pos, batch, edges, y = [], [], [], [], []
    offset = 0
    for i, (zi, pi, yi) in enumerate(samples):
        z.append(zi)
        pos.append(pi)
        batch.append(np.full(len(zi), i, dtype=np.int32))
        edges.append(neighbor_list(pi, CUTOFF) + offset)
        y.append(yi)
        offset += len(zi)
    return (torch.from_numpy(np.concatenate(z)).long(), torch.from_numpy(np.concatenate(pos)),
            torch.from_numpy(np.concatenate(batch)), torch.from_numpy(np.concatenate(edges, axis=1)),
            torch.tensor(y, dtype=torch.float32))


class PaiNNMessage(nn.Module):
    def __init__(self, f, n_rbf=20):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(f, f), nn.SiLU(), nn.Linear(f, 3 * f))
        self.w = nn.Linear(n_rbf, 3 * f)
        self.f = f

    def forward(self, s, v, rbf, unit, edge_index):
        src, dst = edge_index
        x = self.phi(s)[src] * self.w(rbf)
        x_vv, x_ss, x_vs = torch.split(x, self.f, dim=-1)
        dv_e = v[src] * x_vv[:, None, :] + x_vs[:, None, :] * unit[:, :, None]
        ds = torch.zeros_like(s).scatter_add_(0, dst[:, None].expand(-1, self.f), x_ss)
        dv = torch.zeros_like(v).scatter_add_(0, dst[:, None, None].expand(-1, 3, self.f), dv_e)
        return s + ds, v + dv


class PaiNNUpdate(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.uv = nn.Linear(f, 2 * f, bias=False)
        self.mlp = nn.Sequential(nn.Linear(2 * f, f), nn.SiLU(), nn.Linear(f, 3 * f))
        self.f = f

    def forward(self, s, v):
        u, w = torch.split(self.uv(v), self.f, dim=-1)
        a = self.mlp(torch.cat([s, torch.sqrt((w ** 2).sum(1) + 1e-8)], dim=-1))
        a_vv, a_sv, a_ss = torch.split(a, self.f, dim=-1)
        return s + a_ss + a_sv * (u * w).sum(1), v + a_vv[:, None, :] * u


class PaiNN(nn.Module):
    def __init__(self, f=48, n_layers=3, n_rbf=20):
        super().__init__()
        self.embed = nn.Embedding(10, f)
        self.register_buffer("freqs", torch.arange(1, n_rbf + 1) * torch.pi / CUTOFF)
        self.layers = nn.ModuleList([PaiNNMessage(f, n_rbf) for _ in range(n_layers)])
        self.updates = nn.ModuleList([PaiNNUpdate(f) for _ in range(n_layers)])
        self.head = nn.Sequential(nn.Linear(f, f), nn.SiLU(), nn.Linear(f, 1))

    def forward(self, z, pos, batch, edge_index, n_mol):
        src, dst = edge_index
        r = pos[dst] - pos[src]
        d = r.norm(dim=-1, keepdim=True)
        rbf = torch.sin(self.freqs * d) / d
        unit = r / d
        s = self.embed(z)
        v = torch.zeros(s.shape[0], 3, s.shape[1])
        for msg, upd in zip(self.layers, self.updates):
            s, v = msg(s, v, rbf, unit, edge_index)
            s, v = upd(s, v)
        out = self.head(s).squeeze(-1)
        return torch.zeros(n_mol).index_add_(0, batch, out)


def main():
    data = make_dataset(80)
    model = PaiNN()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    ckpt = os.path.join(tempfile.mkdtemp(prefix="painn_"), "painn.pt")
    for epoch in range(4):
        total = 0.0
        for i in range(0, len(data), 16):
            z, pos, batch, edge_index, y = collate(data[i:i + 16])
            pred = model(z, pos, batch, edge_index, n_mol=len(y))
            loss = F.l1_loss(pred, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} dipole MAE {total / 5:.4f}")
    torch.save(model.state_dict(), ckpt)


if __name__ == "__main__":
    main()
