import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(12)
MAX_ATOMS = 16
ATOM_REF = torch.tensor([0.0, -64.0, 0.0, 0.0, 0.0, 0.0, -170.0, -132.0, -115.0, -99.0])


def coulomb_eigenvalues(z, pos):
    n = len(z)
    d = torch.cdist(pos, pos) + torch.eye(n)
    zf = z.float()
    cm = zf[:, None] * zf[None] / d
    cm.diagonal().copy_(0.5 * zf ** 2.4)
    ev = torch.linalg.eigvalsh(cm).flip(0)
    return torch.cat([ev, torch.zeros(MAX_ATOMS - n)])


def make_qm_like(n_mol):
    x, y = [], []
    for _ in range(n_mol):
        n = int(torch.randint(6, MAX_ATOMS + 1, ()))
        z = torch.tensor([6, 7, 8, 9, 1])[torch.multinomial(torch.tensor([0.35, 0.1, 0.1, 0.05, 0.4]), n, True)]
        pos = torch.randn(n, 3) * (0.9 + 0.1 * n ** 0.5)
        x.append(coulomb_eigenvalues(z, pos))
        y.append(ATOM_REF[z].sum() + 40.0 * torch.randn(()) - 0.8 * x[-1][:3].sum())
    return torch.stack(x), torch.stack(y)


def half_collate(batch):
    x = torch.stack([b[0] for b in batch]).half()
    y = torch.stack([b[1] for b in batch]).half()
    return x, y


class PropertyMLP(nn.Module):
    def __init__(self, d_in=MAX_ATOMS, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def main():
    x, y = make_qm_like(1200)
    x_tr, y_tr, x_va, y_va = x[:1000], y[:1000], x[1000:], y[1000:]
    x_mu, x_sd = x_tr.mean(0), x_tr.std(0) + 1e-3
    y_mu, y_sd = y_tr.mean(), y_tr.std()
    print(f"targets: mean {y_mu.item():.1f} kcal/mol, std {y_sd.item():.1f} kcal/mol")

    train = DataLoader(TensorDataset((x_tr - x_mu) / x_sd, y_tr), batch_size=64, shuffle=True,
                       collate_fn=half_collate)
    valid = DataLoader(TensorDataset((x_va - x_mu) / x_sd, y_va), batch_size=100, collate_fn=half_collate)
    model = PropertyMLP().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    y_mu_h, y_sd_h = y_mu.half(), y_sd.half()

    for epoch in range(3):
        model.train()
        total = 0.0
        for xb, yb in train:
            loss = ((model(xb) - (yb - y_mu_h) / y_sd_h) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        model.eval()
        sq_err, abs_err, count = 0.0, 0.0, 0
        with torch.no_grad():
            for xb, yb in valid:
                pred = model(xb) * y_sd_h + y_mu_h
                sq_err += ((pred - yb) ** 2).sum().item()
                abs_err += (pred - yb).abs().sum().item()
                count += len(yb)
        rmse = (sq_err / count) ** 0.5
        print(f"epoch {epoch} train mse {total / len(train):.4f} | valid MAE {abs_err / count:.1f} "
              f"RMSE {rmse:.1f} kcal/mol")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(prefix="cm_"), "cm_mlp.pt"))


if __name__ == "__main__":
    main()
