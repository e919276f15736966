import math
import torch
import torch.nn as nn

torch.manual_seed(3)

DIM = 6
DTYPE = torch.bfloat16


def sample_data(n):
    z = torch.randn(n, 2)
    ring = torch.stack([torch.cos(3 * z[:, 0]), torch.sin(3 * z[:, 0])], 1) * (2 + 0.1 * z[:, 1:])
    extra = torch.randn(n, DIM - 2) * 0.3 + ring.sum(1, keepdim=True) * 0.5
    return torch.cat([ring, extra], 1)


class ActNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(dim))
        self.log_scale = nn.Parameter(torch.zeros(dim))
        self.initialized = False

    def forward(self, x):
        if not self.initialized:
            with torch.no_grad():
                self.loc.copy_(-x.mean(0))
                self.log_scale.copy_(-torch.log(x.std(0) + 1e-6))
            self.initialized = True
        y = (x + self.loc) * self.log_scale.exp()
        return y, self.log_scale.sum().expand(x.size(0))


class InvConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        w, _ = torch.linalg.qr(torch.randn(dim, dim))
        self.weight = nn.Parameter(w)

    def forward(self, x):
        logdet = torch.linalg.slogdet(self.weight)[1]
        return x @ self.weight.t(), logdet.expand(x.size(0))


class AffineCoupling(nn.Module):
    def __init__(self, dim, hidden=64):
        super().__init__()
        self.half = dim // 2
        self.net = nn.Sequential(nn.Linear(self.half, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 2 * (dim - self.half)))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        xa, xb = x[:, :self.half], x[:, self.half:]
        s, t = self.net(xa).chunk(2, dim=1)
        s = torch.tanh(s)
        return torch.cat([xa, xb * s.exp() + t], 1), s.sum(1)


class Glow(nn.Module):
    def __init__(self, dim, n_steps=4):
        super().__init__()
        layers = []
        for _ in range(n_steps):
            layers += [ActNorm(dim), InvConv(dim), AffineCoupling(dim)]
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        logdet = torch.zeros(x.size(0), dtype=x.dtype)
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return x, logdet

    def log_prob(self, x):
        z, logdet = self(x)
        base = -0.5 * (z.float() ** 2).sum(1) - 0.5 * DIM * math.log(2 * math.pi)
        return base + logdet.float()


def main():
    flow = Glow(DIM).to(DTYPE)
    opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
    for step in range(300):
        x = sample_data(256).to(DTYPE)
        loss = -flow.log_prob(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} nll {loss.item():.3f}")
    with torch.no_grad():
        test = sample_data(2000).to(DTYPE)
        print(f"test nll/dim {-flow.log_prob(test).mean().item() / DIM:.3f}")


if __name__ == "__main__":
    main()
