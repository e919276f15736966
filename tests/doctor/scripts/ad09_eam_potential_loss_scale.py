import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(9)
N_ATOMS = 10
LOSS_SCALE = 65536.0


def morse_energy(pos, d0=1.0, a=1.6, r0=1.3):
    diff = pos[:, :, None] - pos[:, None]
    r = (diff.pow(2).sum(-1) + torch.eye(pos.shape[1], dtype=pos.dtype)).sqrt()
    e = d0 * ((1 - torch.exp(-a * (r - r0))) ** 2 - 1)
    return 0.5 * (e * (1 - torch.eye(pos.shape[1], dtype=pos.dtype))).sum((1, 2))


def make_clusters(n):
    pos = torch.randn(n, N_ATOMS, 3, dtype=torch.float64)
    pos = pos / pos.norm(dim=-1, keepdim=True) * (1.2 + 0.6 * torch.rand(n, N_ATOMS, 1, dtype=torch.float64))
    pos.requires_grad_(True)
    e = morse_energy(pos)
    f = -torch.autograd.grad(e.sum(), pos)[0]
    return pos.detach().float(), e.detach().float(), f.detach().float()


class NeuralEAM(nn.Module):
    def __init__(self, n_basis=16, hidden=32, cutoff=3.5):
        super().__init__()
        self.register_buffer("mu", torch.linspace(0.5, cutoff, n_basis))
        self.cutoff = cutoff
        self.density = nn.Sequential(nn.Linear(n_basis, hidden), nn.SiLU(), nn.Linear(hidden, 4))
        self.pair = nn.Sequential(nn.Linear(n_basis, hidden), nn.SiLU(), nn.Linear(hidden, 1))
        self.embed = nn.Sequential(nn.Linear(4, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, pos):
        n = pos.shape[1]
        eye = torch.eye(n, dtype=pos.dtype)
        r = ((pos[:, :, None] - pos[:, None]).pow(2).sum(-1) + eye).sqrt()
        fc = (0.5 * (torch.cos(torch.pi * r / self.cutoff) + 1)) * (r < self.cutoff) * (1 - eye)
        basis = torch.exp(-4.0 * (r[..., None] - self.mu) ** 2) * fc[..., None]
        rho = (self.density(basis) * fc[..., None]).sum(2)
        e_pair = 0.5 * (self.pair(basis).squeeze(-1) * fc).sum((1, 2))
        return self.embed(rho).squeeze(-1).sum(1) + e_pair


def main():
    pos, e_ref, f_ref = make_clusters(192)
    e_mean, e_std, f_std = e_ref.mean(), e_ref.std(), f_ref.std()
    model = NeuralEAM().half()
    master = [p.detach().float().clone().requires_grad_(True) for p in model.parameters()]
    opt = torch.optim.Adam(master, lr=2e-3)

    for epoch in range(3):
        for i in range(0, pos.shape[0], 32):
            p = pos[i:i + 32].half().requires_grad_(True)
            e = model(p)
            f = -torch.autograd.grad(e.sum(), p, create_graph=True)[0]
            e_loss = (((e - (e_ref[i:i + 32] - e_mean).half()) / e_std.half()) ** 2).mean()
            f_loss = (((f - f_ref[i:i + 32].half()) / f_std.half()) ** 2).mean()
            loss = e_loss + 10.0 * f_loss
            model.zero_grad(set_to_none=True)
            (loss * LOSS_SCALE).backward()
            for mp, p16 in zip(master, model.parameters()):
                mp.grad = p16.grad.float() / LOSS_SCALE
            opt.step()
            with torch.no_grad():
                for mp, p16 in zip(master, model.parameters()):
                    p16.copy_(mp)
        print(f"epoch {epoch} loss {loss.item():.4f} energy {e_loss.item():.4f} forces {f_loss.item():.4f}")

    ckpt = os.path.join(tempfile.mkdtemp(prefix="eam_"), "neural_eam.pt")
    torch.save({k: v.float() for k, v in model.state_dict().items()}, ckpt)


if __name__ == "__main__":
    main()
