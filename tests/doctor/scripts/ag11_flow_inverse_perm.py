import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
DIM = 6


def correlated_data(n):
    z = torch.randn(n, 3)
    mix = torch.randn(3, DIM)
    x = z @ mix + 0.3 * torch.sin(2 * z[:, :1]) + 0.1 * torch.randn(n, DIM)
    return x


class AffineCoupling(nn.Module):
    def __init__(self, dim, hidden=64):
        super().__init__()
        self.d = dim // 2
        self.net = nn.Sequential(nn.Linear(self.d, hidden), nn.ReLU(), nn.Linear(hidden, 2 * (dim - self.d)))

    def forward(self, x):
        x1, x2 = x[:, :self.d], x[:, self.d:]
        s, t = self.net(x1).chunk(2, dim=-1)
        s = torch.tanh(s)
        return torch.cat([x1, x2 * s.exp() + t], -1), s.sum(-1)

    def inverse(self, y):
        y1, y2 = y[:, :self.d], y[:, self.d:]
        s, t = self.net(y1).chunk(2, dim=-1)
        s = torch.tanh(s)
        return torch.cat([y1, (y2 - t) * (-s).exp()], -1)


class Permute(nn.Module):
    def __init__(self, dim):
        super().__init__()
        perm = torch.randperm(dim)
        inv = torch.zeros(dim)
        inv[perm] = torch.arange(dim, dtype=inv.dtype)
        self.register_buffer("perm", perm)
        self.register_buffer("inv_perm", inv)

    def forward(self, x):
        return x[:, self.perm], x.new_zeros(x.shape[0])

    def inverse(self, y):
        return y[:, self.inv_perm]


class RealNVP(nn.Module):
    def __init__(self, dim, n_blocks=4):
        super().__init__()
        layers = []
        for _ in range(n_blocks):
            layers += [AffineCoupling(dim), Permute(dim)]
        self.flows = nn.ModuleList(layers)

    def log_prob(self, x):
        logdet = x.new_zeros(x.shape[0])
        for f in self.flows:
            x, ld = f(x)
            logdet = logdet + ld
        base = -0.5 * (x ** 2).sum(-1) - 0.5 * x.shape[1] * math.log(2 * math.pi)
        return base + logdet

    @torch.no_grad()
    def sample(self, n):
        z = torch.randn(n, DIM)
        for f in reversed(self.flows):
            z = f.inverse(z)
        return z


def main():
    data = correlated_data(4000)
    loader = DataLoader(TensorDataset(data), batch_size=200, shuffle=True)
    flow = RealNVP(DIM)
    opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
    for epoch in range(10):
        tot = 0.0
        for (xb,) in loader:
            loss = -flow.log_prob(xb).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        print(f"epoch {epoch}  nll {tot / len(loader):.4f}")

    samples = flow.sample(2000)
    print("data mean   ", data.mean(0).tolist())
    print("sample mean ", samples.mean(0).tolist())
    print("cov error   ", (torch.cov(samples.T) - torch.cov(data.T)).abs().max().item())


if __name__ == "__main__":
    main()
