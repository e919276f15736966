import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from accelerate import Accelerator

torch.manual_seed(0)


def cubic_data(n, lo=-4.0, hi=4.0):
    x = torch.rand(n, 1) * (hi - lo) + lo
    y = x ** 3 / 10.0 + torch.randn(n, 1) * 0.3 * (1 + 0.3 * x.abs())
    return x, y


class NIGHead(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.proj = nn.Linear(hidden, 4)

    def forward(self, h):
        gamma, log_nu, log_alpha, log_beta = self.proj(h).float().unbind(-1)
        nu = F.softplus(log_nu) + 1e-6
        alpha = F.softplus(log_alpha) + 1.0 + 1e-6
        beta = F.softplus(log_beta) + 1e-6
        return gamma, nu, alpha, beta


class EvidentialRegressor(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.head = NIGHead(hidden)

    def forward(self, x):
        return self.head(self.body(x))


def nig_nll(y, gamma, nu, alpha, beta):
    omega = 2.0 * beta * (1.0 + nu)
    return (0.5 * torch.log(math.pi / nu)
            - alpha * torch.log(omega)
            + (alpha + 0.5) * torch.log(nu * (y - gamma) ** 2 + omega)
            + torch.lgamma(alpha) - torch.lgamma(alpha + 0.5))


def nig_reg(y, gamma, nu, alpha):
    return (y - gamma).abs() * (2.0 * nu + alpha)


def main():
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    x, y = cubic_data(4000)
    loader = DataLoader(TensorDataset(x, y.squeeze(-1)), batch_size=128, shuffle=True)
    model = EvidentialRegressor()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model, opt, loader = accelerator.prepare(model, opt, loader)

    for epoch in range(8):
        model.train()
        tot = 0.0
        for xb, yb in loader:
            gamma, nu, alpha, beta = model(xb)
            yb = yb.float()
            loss = (nig_nll(yb, gamma, nu, alpha, beta) + 0.01 * nig_reg(yb, gamma, nu, alpha)).mean()
            opt.zero_grad()
            accelerator.backward(loss)
            opt.step()
            tot += loss.item()
        accelerator.print(f"epoch {epoch}  evidential loss {tot / len(loader):.4f}")

    model.eval()
    x_test = torch.linspace(-6, 6, 7).unsqueeze(-1)
    with torch.no_grad(), accelerator.autocast():
        gamma, nu, alpha, beta = model(x_test)
    aleatoric = beta / (alpha - 1)
    epistemic = beta / (nu * (alpha - 1))
    for xi, g, a, e in zip(x_test.squeeze(-1).tolist(), gamma.tolist(), aleatoric.tolist(), epistemic.tolist()):
        print(f"x={xi:+.1f}  mean={g:+.3f}  aleatoric={a:.4f}  epistemic={e:.4f}")


if __name__ == "__main__":
    main()
