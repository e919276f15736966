import math
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_data(n):
    x = torch.rand(n, 2) * 6 - 3
    f = torch.sin(x[:, 0]) * torch.cos(0.5 * x[:, 1]) + 0.2 * x[:, 1]
    return x, f + 0.05 * torch.randn(n)


class Encoder(nn.Module):
    def __init__(self, hidden=64, d_out=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.GELU(), nn.Linear(hidden, d_out))

    def forward(self, x):
        return self.net(x)


class Matern52(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.raw_lengthscale = nn.Parameter(torch.zeros(d, dtype=torch.float64))
        self.raw_outputscale = nn.Parameter(torch.zeros((), dtype=torch.float64))

    def forward(self, a, b):
        ls = nn.functional.softplus(self.raw_lengthscale)
        r = torch.cdist(a / ls, b / ls).clamp_min(1e-12)
        s5r = math.sqrt(5.0) * r
        return nn.functional.softplus(self.raw_outputscale) * (1 + s5r + 5.0 / 3.0 * r ** 2) * torch.exp(-s5r)


class DeepKernelRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.kernel = Matern52(3)
        self.raw_noise = nn.Parameter(torch.tensor(-3.0, dtype=torch.float64))

    def embed(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            z = self.encoder(x)
        return z.to(torch.float64)

    def noise(self):
        return nn.functional.softplus(self.raw_noise) + 1e-6

    def neg_mll(self, x, y):
        z = self.embed(x)
        y = y.to(torch.float64)
        K = self.kernel(z, z) + self.noise() * torch.eye(len(y), dtype=torch.float64)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        return 0.5 * (y @ alpha.squeeze(-1)) + torch.log(torch.diagonal(L)).sum() + 0.5 * len(y) * math.log(2 * math.pi)

    @torch.no_grad()
    def predict(self, x_train, y_train, x_test):
        z, zs = self.embed(x_train), self.embed(x_test)
        K = self.kernel(z, z) + self.noise() * torch.eye(len(y_train), dtype=torch.float64)
        L = torch.linalg.cholesky(K)
        Ks = self.kernel(zs, z)
        mean = Ks @ torch.cholesky_solve(y_train.to(torch.float64).unsqueeze(-1), L)
        v = torch.linalg.solve_triangular(L, Ks.T, upper=False)
        var = self.kernel(zs, zs).diagonal() - (v ** 2).sum(0) + self.noise()
        return mean.squeeze(-1), var.clamp_min(1e-10)


def main():
    x, y = make_data(400)
    x_te, y_te = make_data(200)
    model = DeepKernelRegressor()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for step in range(150):
        idx = torch.randperm(len(y))[:200]
        loss = model.neg_mll(x[idx], y[idx]) / len(idx)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 25 == 0:
            print(f"step {step:3d}  -mll/n {loss.item():.4f}  noise {model.noise().item():.5f}")

    mean, var = model.predict(x, y, x_te)
    y64 = y_te.to(torch.float64)
    nlpd = 0.5 * (torch.log(2 * math.pi * var) + (y64 - mean) ** 2 / var).mean()
    rmse = ((y64 - mean) ** 2).mean().sqrt()
    print(f"test rmse {rmse.item():.4f}  nlpd {nlpd.item():.4f}")


if __name__ == "__main__":
    main()
