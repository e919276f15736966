import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def make_split(n, seed, label_noise=0.08):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 20, generator=g)
    w = torch.linspace(-1.0, 1.0, 20)
    y = ((x @ w) + 0.5 * x[:, 0] * x[:, 1] > 0).float()
    flip = torch.rand(n, generator=g) < label_noise
    return x, torch.where(flip, 1 - y, y)


class Scorer(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class PlattScaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.tensor(1.0))
        self.b = nn.Parameter(torch.tensor(0.0))

    def forward(self, logits):
        return torch.sigmoid(self.a * logits + self.b)


def binary_nll(p, y):
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()


def main():
    x_tr, y_tr = make_split(8000, seed=1)
    x_cal, y_cal = make_split(2000, seed=2)
    model = Scorer()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=128, shuffle=True)
    for epoch in range(12):
        tot = 0.0
        for xb, yb in loader:
            loss = F.binary_cross_entropy_with_logits(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        print(f"epoch {epoch:2d}  train bce {tot / len(loader):.4f}")

    serving = model.eval().to(torch.bfloat16)
    with torch.no_grad():
        cal_logits = serving(x_cal.to(torch.bfloat16))
    print(f"calibration logits in [{cal_logits.min().item():.2f}, {cal_logits.max().item():.2f}]")

    platt = PlattScaler()
    popt = torch.optim.Adam(platt.parameters(), lr=0.05)
    for it in range(200):
        p = platt(cal_logits)
        nll = binary_nll(p, y_cal)
        popt.zero_grad()
        nll.backward()
        popt.step()
        if it % 50 == 0:
            print(f"platt iter {it:3d}  nll {nll.item():.4f}")
    print(f"platt a={platt.a.item():.4f} b={platt.b.item():.4f}  final calibration nll {nll.item():.4f}")


if __name__ == "__main__":
    main()
