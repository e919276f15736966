import math
import torch
import torch.nn as nn

torch.manual_seed(7)


def make_data(n=120):
    x = torch.rand(n, 2) * 6 - 3
    f = torch.sin(x[:, 0]) * torch.cos(0.5 * x[:, 1]) + 0.1 * x[:, 1] ** 2
    return x, f + 0.1 * torch.randn(n)


class DeepKernelGP(nn.Module):
    def __init__(self, in_dim, dim=4):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, 32), nn.Tanh(), nn.Linear(32, dim))
        self.raw_lengthscale = nn.Parameter(torch.zeros(in_dim + dim, dtype=torch.float64))
        self.raw_outputscale = nn.Parameter(torch.tensor(0.0, dtype=torch.float64))
        self.raw_noise = nn.Parameter(torch.tensor(-2.0, dtype=torch.float64))
        self.mean = nn.Parameter(torch.tensor(0.0, dtype=torch.float64))

    @property
    def noise(self):
        return nn.functional.softplus(self.raw_noise) + 1e-6

    def embed(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = self.features(x)
        return torch.cat([x, h], dim=1).double()

    def kernel(self, a, b):
        ls = nn.functional.softplus(self.raw_lengthscale)
        d2 = torch.cdist(a / ls, b / ls).pow(2)
        return nn.functional.softplus(self.raw_outputscale) * torch.exp(-0.5 * d2)

    def neg_mll(self, x, y):
        x, y = self.embed(x), y.double()
        n = x.size(0)
        K = self.kernel(x, x) + self.noise * torch.eye(n, dtype=torch.float64)
        L = torch.linalg.cholesky(K + 1e-8 * torch.eye(n, dtype=torch.float64))
        r = (y - self.mean).unsqueeze(1)
        alpha = torch.cholesky_solve(r, L)
        fit = 0.5 * (r * alpha).sum()
        logdet = torch.log(torch.diagonal(L)).sum()
        return (fit + logdet + 0.5 * n * math.log(2 * math.pi)) / n

    @torch.no_grad()
    def predict(self, x, y, xs):
        x, y, xs = self.embed(x), y.double(), self.embed(xs)
        n = x.size(0)
        K = self.kernel(x, x) + self.noise * torch.eye(n, dtype=torch.float64)
        L = torch.linalg.cholesky(K)
        Ks = self.kernel(xs, x)
        alpha = torch.cholesky_solve((y - self.mean).unsqueeze(1), L)
        mu = self.mean + (Ks @ alpha).squeeze(1)
        v = torch.linalg.solve_triangular(L, Ks.t(), upper=False)
        var = self.kernel(xs[:1], xs[:1]).squeeze() - (v * v).sum(0) + self.noise
        return mu, var


def main():
    x, y = make_data()
    xt, yt = make_data(300)
    gp = DeepKernelGP(2)
    opt = torch.optim.Adam(gp.parameters(), lr=0.05)
    for it in range(150):
        loss = gp.neg_mll(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 30 == 0 or it == 149:
            print(f"iter {it} neg mll/n {loss.item():.4f} noise {gp.noise.item():.4f}")
    mu, var = gp.predict(x, y, xt)
    rmse = (mu - yt.double()).pow(2).mean().sqrt()
    nlpd = (0.5 * torch.log(2 * math.pi * var) + 0.5 * (yt.double() - mu) ** 2 / var).mean()
    print(f"test rmse {rmse.item():.4f} nlpd {nlpd.item():.4f}")


if __name__ == "__main__":
    main()
