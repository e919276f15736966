import math
import os
import tempfile
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def housing_like(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    base = 520.0 + 300.0 * x[:, 0] + 90.0 * x[:, 1] * x[:, 2] + 60.0 * torch.tanh(x[:, 3])
    noise_sd = 40.0 + 120.0 * torch.sigmoid(2.0 * x[:, 4])
    price = base + noise_sd * torch.randn(n, generator=g)
    return x, price


class HeteroscedasticMLP(nn.Module):
    def __init__(self, d_in=8, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.mean_head = nn.Linear(hidden, 1)
        self.logvar_head = nn.Linear(hidden, 1)
        self.register_buffer("y_mean", torch.zeros(()))
        self.register_buffer("y_var", torch.ones(()))

    def set_target_stats(self, y):
        self.y_mean.fill_(y.mean())
        self.y_var.fill_(y.var())

    def forward_normalized(self, x):
        h = self.body(x)
        return self.mean_head(h).squeeze(-1), self.logvar_head(h).squeeze(-1)

    def forward(self, x):
        mu, logvar = self.forward_normalized(x)
        return mu * self.y_var.sqrt() + self.y_mean, logvar.exp() * self.y_var


def gaussian_nll(mean, var, y):
    return 0.5 * (torch.log(2 * math.pi * var) + (y - mean) ** 2 / var).mean()


def main():
    x_tr, y_tr = housing_like(6000, seed=1)
    x_te, y_te = housing_like(1000, seed=2)
    model = HeteroscedasticMLP()
    model.set_target_stats(y_tr)
    y_norm = (y_tr - model.y_mean) / model.y_var.sqrt()
    loader = DataLoader(TensorDataset(x_tr, y_norm), batch_size=200, shuffle=True)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(10):
        tot = 0.0
        for xb, yb in loader:
            mu, logvar = model.forward_normalized(xb)
            loss = gaussian_nll(mu, logvar.exp(), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        print(f"epoch {epoch}  normalized nll {tot / len(loader):.4f}")

    model.eval()
    with torch.no_grad():
        mean32, var32 = model(x_te)
        print(f"fp32 test nll {gaussian_nll(mean32, var32, y_te).item():.4f}")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "hetero_fp16.pt")
        torch.save({k: v.half() for k, v in model.state_dict().items()}, path)
        deployed = HeteroscedasticMLP().half()
        deployed.load_state_dict(torch.load(path, weights_only=True))
        deployed.eval()
        print(f"exported checkpoint: {os.path.getsize(path) / 1024:.1f} KiB")

    with torch.no_grad():
        mean16, var16 = deployed(x_te.half())
        nll16 = gaussian_nll(mean16.float(), var16.float(), y_te)
        max_diff = (mean16.float() - mean32).abs().max()
    print(f"fp16 export check: test nll {nll16.item():.4f}  max |mean diff| {max_diff.item():.4f}")


if __name__ == "__main__":
    main()
