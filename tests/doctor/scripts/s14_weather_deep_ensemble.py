import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_FEAT = 12


def make_station_data(n):
    hour = torch.rand(n) * 24
    doy = torch.rand(n) * 365
    x = torch.randn(n, N_FEAT)
    x[:, 0] = torch.sin(2 * math.pi * hour / 24)
    x[:, 1] = torch.cos(2 * math.pi * doy / 365)
    kelvin = 283.0 + 9.0 * x[:, 1] + 4.0 * x[:, 0] + 1.5 * x[:, 2] - 0.8 * x[:, 3] * x[:, 4]
    kelvin = kelvin + (0.5 + 0.4 * x[:, 5].abs()) * torch.randn(n)
    return x, kelvin


class GaussianMLP(nn.Module):
    def __init__(self, y_mean, y_std):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(N_FEAT, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU())
        self.mu = nn.Linear(64, 1)
        self.log_var = nn.Linear(64, 1)
        self.register_buffer("y_mean", torch.tensor(y_mean))
        self.register_buffer("y_std", torch.tensor(y_std))

    def forward(self, x):
        h = self.body(x)
        mu = self.mu(h).squeeze(-1) * self.y_std + self.y_mean
        var = self.log_var(h).squeeze(-1).exp() * self.y_std ** 2
        return mu, var


x_tr, y_tr = make_station_data(4000)
x_te, y_te = make_station_data(1000)
y_mean, y_std = y_tr.mean().item(), y_tr.std().item()

members = []
for seed in range(5):
    torch.manual_seed(100 + seed)
    m = GaussianMLP(y_mean, y_std)
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    for epoch in range(6):
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(x_tr), 128):
            idx = perm[i:i + 128]
            mu, var = m(x_tr[idx])
            loss = F.gaussian_nll_loss(mu, y_tr[idx], var)
            opt.zero_grad()
            loss.backward()
            opt.step()
    members.append(m.eval())
    print(f"member {seed} final nll {loss.item():.3f}")


class DeepEnsemble(nn.Module):
    def __init__(self, members):
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, x):
        mus, vars_ = zip(*(m(x) for m in self.members))
        mus, vars_ = torch.stack(mus), torch.stack(vars_)
        mu = mus.mean(0)
        var = (vars_ + mus ** 2).mean(0) - mu ** 2
        return mu, var


ensemble = DeepEnsemble(members).half().eval()
with torch.inference_mode():
    mu, var = ensemble(x_te.half())
    mu, var = mu.float(), var.float()
rmse = (mu - y_te).pow(2).mean().sqrt()
nll = F.gaussian_nll_loss(mu, y_te, var, full=True)
z = (y_te - mu) / var.sqrt()
coverage = (z.abs() < 1.96).float().mean()
print(f"ensemble test rmse {rmse.item():.3f} K  nll {nll.item():.4f}  95% coverage {coverage.item():.3f}")
