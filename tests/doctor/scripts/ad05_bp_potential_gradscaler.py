import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(5)
N_ATOMS = 13
ETA = torch.tensor([0.5, 1.0, 2.0, 4.0, 8.0])
RS = torch.tensor([0.9, 1.1, 1.3, 1.6, 2.0])
RC = 3.0


def lj_energy(pos, eps=1.0, sigma=1.0):
    d = torch.cdist(pos, pos)
    iu = torch.triu_indices(pos.shape[1], pos.shape[1], 1)
    r = d[:, iu[0], iu[1]]
    sr6 = (sigma / r) ** 6
    return (4 * eps * (sr6 ** 2 - sr6)).sum(-1)


def make_lj_dataset(n):
    base = torch.stack(torch.meshgrid(*[torch.arange(3.0)] * 3, indexing="ij"), -1).reshape(-1, 3)[:N_ATOMS]
    pos = (base * 1.12).expand(n, -1, -1) + 0.07 * torch.randn(n, N_ATOMS, 3)
    pos = pos.double().requires_grad_(True)
    e = lj_energy(pos)
    f = -torch.autograd.grad(e.sum(), pos)[0]
    return pos.detach().float(), e.detach().float(), f.detach().float()


class SymmetryFunctions(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("eta", ETA)
        self.register_buffer("rs", RS)

    def forward(self, pos):
        diff = pos[:, :, None, :] - pos[:, None, :, :]
        eye = torch.eye(pos.shape[1], dtype=pos.dtype)
        r = torch.sqrt((diff ** 2).sum(-1) + eye)
        fc = 0.5 * (torch.cos(torch.pi * r / RC) + 1) * (r < RC) * (1 - eye)
        g = torch.exp(-self.eta * (r[..., None] - self.rs) ** 2) * fc[..., None]
        return g.sum(2)


class AtomicNN(nn.Module):
    def __init__(self, n_feat=5, hidden=32):
        super().__init__()
        self.descriptor = SymmetryFunctions()
        self.net = nn.Sequential(nn.Linear(n_feat, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))

    def forward(self, pos):
        return self.net(self.descriptor(pos)).squeeze(-1).sum(-1)


def energy_and_forces(model, pos):
    pos = pos.requires_grad_(True)
    energy = model(pos)
    forces = -torch.autograd.grad(energy.sum(), pos, create_graph=True)[0]
    return energy, forces


def main():
    pos, e_ref, f_ref = make_lj_dataset(256)
    e_mean, e_std = e_ref.mean(), e_ref.std()
    f_std = f_ref.std()
    model = AtomicNN().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    out_dir = tempfile.mkdtemp(prefix="bpnn_")

    for epoch in range(3):
        perm = torch.randperm(pos.shape[0])
        for i in range(0, pos.shape[0], 32):
            idx = perm[i:i + 32]
            p = pos[idx].half()
            e_pred, f_pred = energy_and_forces(model, p)
            e_loss = (((e_pred.float() - (e_ref[idx] - e_mean)) / e_std) ** 2).mean()
            f_loss = (((f_pred.float() - f_ref[idx]) / f_std) ** 2).mean()
            loss = e_loss + 5.0 * f_loss
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            scaler.step(opt)
            scaler.update()
        print(f"epoch {epoch} loss {loss.item():.4f} (E {e_loss.item():.4f}, F {f_loss.item():.4f})")
    torch.save(model.state_dict(), os.path.join(out_dir, "bpnn.pt"))


if __name__ == "__main__":
    main()
