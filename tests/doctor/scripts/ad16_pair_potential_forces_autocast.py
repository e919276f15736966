import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(16)
N_ATOMS, CUTOFF = 12, 4.0


def reference_energy(pos):
    n = pos.shape[1]
    eye = torch.eye(n, dtype=pos.dtype)
    r = ((pos[:, :, None] - pos[:, None]) ** 2).sum(-1).add(eye).sqrt()
    pair = 2.0 * torch.exp(-2.0 * (r - 1.1)) - 1.5 * torch.exp(-0.8 * (r - 1.1) ** 2)
    return 0.5 * (pair * (1 - eye)).sum((1, 2))


def make_data(n):
    lattice = torch.stack(torch.meshgrid(*[torch.arange(3.0)] * 3, indexing="ij"), -1).reshape(-1, 3)
    pos = lattice[torch.randperm(27)[:N_ATOMS]].expand(n, -1, -1) * 1.2 + 0.08 * torch.randn(n, N_ATOMS, 3)
    pos = pos.double().requires_grad_(True)
    e = reference_energy(pos)
    f = -torch.autograd.grad(e.sum(), pos)[0]
    return pos.detach().float(), e.detach().float(), f.detach().float()


class RadialPotential(nn.Module):
    def __init__(self, n_rbf=24, hidden=64):
        super().__init__()
        self.register_buffer("mu", torch.linspace(0.6, CUTOFF, n_rbf))
        self.env = nn.Sequential(nn.Linear(n_rbf, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.atom = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))
        self.pair = nn.Sequential(nn.Linear(n_rbf, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def geometry(self, pos):
        n = pos.shape[1]
        eye = torch.eye(n, dtype=pos.dtype)
        r = ((pos[:, :, None] - pos[:, None]) ** 2).sum(-1).add(eye).sqrt()
        fc = 0.5 * (torch.cos(torch.pi * r / CUTOFF) + 1) * (r < CUTOFF) * (1 - eye)
        rbf = torch.exp(-8.0 * (r[..., None] - self.mu) ** 2) * fc[..., None]
        return rbf, fc

    def forward(self, pos):
        with torch.autocast("cpu", enabled=False):
            rbf, fc = self.geometry(pos.float())
        desc = self.env(rbf).sum(2)
        e_atom = self.atom(desc).squeeze(-1).float()
        e_pair = (self.pair(rbf).squeeze(-1).float() * fc).sum((1, 2)) * 0.5
        return e_atom.sum(1) + e_pair


def main():
    pos, e_ref, f_ref = make_data(240)
    e_mu, e_sd, f_sd = e_ref.mean(), e_ref.std(), f_ref.std()
    model = RadialPotential()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for epoch in range(4):
        perm = torch.randperm(pos.shape[0])
        tot_e = tot_f = 0.0
        for i in range(0, pos.shape[0], 40):
            idx = perm[i:i + 40]
            p = pos[idx].clone().requires_grad_(True)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                energy = model(p)
            forces = -torch.autograd.grad(energy.sum(), p, create_graph=True)[0]
            e_loss = (((energy.float() - e_ref[idx] + e_mu) / e_sd) ** 2).mean()
            f_loss = (((forces.float() - f_ref[idx]) / f_sd) ** 2).mean()
            loss = e_loss + 20.0 * f_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            opt.step()
            tot_e += e_loss.item()
            tot_f += f_loss.item()
        print(f"epoch {epoch} energy {tot_e / 6:.4f} forces {tot_f / 6:.4f}")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(prefix="pairpot_"), "potential.pt"))


if __name__ == "__main__":
    main()
