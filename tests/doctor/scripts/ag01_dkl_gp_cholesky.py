import math
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_data(n=256):
    x = torch.rand(n, 3) * 4 - 2
    f = torch.sin(2 * x[:, 0]) + 0.5 * x[:, 1] ** 2 - 0.3 * x[:, 2]
    y = f + 0.1 * torch.randn(n)
    return x, y


class FeatureExtractor(nn.Module):
    def __init__(self, d_in=3, d_hidden=32, d_out=4):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.Tanh(),
            nn.Linear(d_hidden, d_hidden), nn.Tanh(),
            nn.Linear(d_hidden, d_out),
        )

    def forward(self, x):
        return self.net(x)


class RBFKernel(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.log_lengthscale = nn.Parameter(torch.zeros(d))
        self.log_outputscale = nn.Parameter(torch.zeros(()))

    def forward(self, a, b):
        a = a / self.log_lengthscale.exp()
        b = b / self.log_lengthscale.exp()
        sq = (a * a).sum(-1, keepdim=True) - 2 * a @ b.T + (b * b).sum(-1)
        return self.log_outputscale.exp() * torch.exp(-0.5 * sq.clamp_min(0))


class GaussianMarginalLikelihood(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_noise = nn.Parameter(torch.tensor(-2.0))

    def forward(self, K, y):
        n = y.shape[0]
        K = K + (self.log_noise.exp() + 1e-4) * torch.eye(n, dtype=K.dtype)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        quad = (y.unsqueeze(-1) * alpha).sum()
        logdet = 2 * torch.log(torch.diagonal(L)).sum()
        return 0.5 * (quad + logdet + n * math.log(2 * math.pi)) / n


class DeepKernelGP(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = FeatureExtractor()
        self.kernel = RBFKernel(4)
        self.likelihood = GaussianMarginalLikelihood()

    def forward(self, x, y):
        z = self.features(x)
        K = self.kernel(z, z)
        return self.likelihood(K, y)


def main():
    x, y = make_data()
    model = DeepKernelGP().half()
    x, y = x.half(), y.half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(60):
        idx = torch.randperm(x.shape[0])[:128]
        opt.zero_grad()
        nll = model(x[idx], y[idx])
        nll.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:3d}  neg. marginal log-lik per point {nll.item():.4f}")
    print("final noise std:", model.likelihood.log_noise.exp().sqrt().item())


if __name__ == "__main__":
    main()
