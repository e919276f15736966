import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(10)
N_ATOMS = 9
KT = 0.593  # kcal/mol at 298 K


def make_ensembles(n_mol, conf_range=(3, 7)):
    feats, mol_index, energies, targets = [], [], [], []
    for m in range(n_mol):
        n_conf = int(torch.randint(*conf_range, ()))
        base = torch.randn(N_ATOMS, 3) * 1.5
        confs = base + 0.4 * torch.randn(n_conf, N_ATOMS, 3)
        d = torch.cdist(confs, confs)
        iu = torch.triu_indices(N_ATOMS, N_ATOMS, 1)
        feats.append(d[:, iu[0], iu[1]])
        mol_index.append(torch.full((n_conf,), m))
        e_conf = -30.0 + 3.0 * (d.mean((1, 2)) - d.mean()) + 4.0 * torch.randn(())
        energies.append(e_conf)
        w = torch.softmax(-e_conf / KT, 0)
        prop = (confs.norm(dim=-1).mean(-1) * w).sum()
        targets.append(prop)
    return torch.cat(feats), torch.cat(mol_index), torch.cat(energies), torch.stack(targets)


class ConformerEnsembleModel(nn.Module):
    def __init__(self, n_pairs, e_mean, e_std, hidden=128):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(n_pairs, hidden), nn.SiLU(), nn.LayerNorm(hidden),
                                     nn.Linear(hidden, hidden), nn.SiLU())
        self.energy_head = nn.Linear(hidden, 1)
        self.property_head = nn.Linear(hidden, 1)
        self.register_buffer("e_mean", torch.tensor(float(e_mean)))
        self.register_buffer("e_std", torch.tensor(float(e_std)))

    def forward(self, feats, mol_index, n_mol):
        h = self.encoder(feats)
        e_norm = self.energy_head(h).squeeze(-1)
        energy = e_norm * self.e_std + self.e_mean
        prop = self.property_head(h).squeeze(-1)
        w = torch.exp(-energy / KT)
        z = torch.zeros(n_mol, dtype=w.dtype).index_add_(0, mol_index, w)
        num = torch.zeros(n_mol, dtype=w.dtype).index_add_(0, mol_index, w * prop)
        return num / z, e_norm


def batches(feats, mol_index, energies, targets, bs):
    for start in range(0, len(targets), bs):
        sel = (mol_index >= start) & (mol_index < start + bs)
        yield feats[sel], mol_index[sel] - start, energies[sel], targets[start:start + bs]


def main():
    feats, mol_index, energies, y = make_ensembles(160)
    mean, std = y.mean(), y.std()
    e_mean, e_std = energies.mean(), energies.std()
    model = ConformerEnsembleModel(feats.shape[1], e_mean, e_std).half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(4):
        total, n = 0.0, 0
        for f, idx, e, target in batches(feats, mol_index, energies, y, 32):
            pred, e_norm = model(f.half(), idx, len(target))
            loss = F.mse_loss(pred.float(), (target - mean) / std) + F.mse_loss(e_norm.float(), (e - e_mean) / e_std)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            n += 1
        print(f"epoch {epoch} ensemble property mse {total / n:.4f}")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(prefix="ens_"), "ensemble.pt"))


if __name__ == "__main__":
    main()
