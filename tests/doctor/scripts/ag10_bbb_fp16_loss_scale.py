import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class BayesByBackpropLinear(nn.Module):
    def __init__(self, d_in, d_out, prior_sigma=1.0):
        super().__init__()
        self.w_mu = nn.Parameter(torch.randn(d_out, d_in) * 0.1)
        self.w_rho = nn.Parameter(torch.full((d_out, d_in), -5.0))
        self.b_mu = nn.Parameter(torch.zeros(d_out))
        self.b_rho = nn.Parameter(torch.full((d_out,), -5.0))
        self.prior_sigma = prior_sigma

    def forward(self, x):
        w_sigma = F.softplus(self.w_rho)
        b_sigma = F.softplus(self.b_rho)
        w = self.w_mu + w_sigma * torch.randn_like(w_sigma)
        b = self.b_mu + b_sigma * torch.randn_like(b_sigma)
        return F.linear(x, w, b)

    def kl(self):
        total = 0.0
        for mu, rho in ((self.w_mu, self.w_rho), (self.b_mu, self.b_rho)):
            sigma = F.softplus(rho)
            total = total + (torch.log(self.prior_sigma / sigma)
                             + (sigma ** 2 + mu ** 2) / (2 * self.prior_sigma ** 2) - 0.5).sum()
        return total


class BNNRegressor(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.l1 = BayesByBackpropLinear(1, hidden)
        self.l2 = BayesByBackpropLinear(hidden, hidden)
        self.l3 = BayesByBackpropLinear(hidden, 1)
        self.log_noise = nn.Parameter(torch.tensor(-1.0))

    def forward(self, x):
        return self.l3(torch.tanh(self.l2(torch.tanh(self.l1(x))))).squeeze(-1)

    def kl(self):
        return self.l1.kl() + self.l2.kl() + self.l3.kl()


def toy_data(n=4096):
    x = torch.cat([torch.rand(n // 2) * 2 - 4, torch.rand(n // 2) * 2 + 2]).unsqueeze(-1)
    y = torch.sin(x.squeeze(-1)) + 0.1 * torch.randn(n)
    return x, y


def main():
    x, y = toy_data()
    loader = DataLoader(TensorDataset(x.half(), y.half()), batch_size=128, shuffle=True)
    model = BNNRegressor().half()
    opt = torch.optim.SGD(model.parameters(), lr=2e-3, momentum=0.9)
    loss_scale = 2.0 ** 16
    n = len(loader.dataset)

    for epoch in range(10):
        tot = 0.0
        for xb, yb in loader:
            pred = model(xb)
            noise_var = torch.exp(2 * model.log_noise)
            nll = 0.5 * ((yb - pred) ** 2 / noise_var + 2 * model.log_noise + math.log(2 * math.pi)).mean()
            loss = nll + model.kl() / n
            opt.zero_grad()
            (loss * loss_scale).backward()
            for p in model.parameters():
                if p.grad is not None:
                    p.grad.div_(loss_scale)
            opt.step()
            tot += loss.item()
        print(f"epoch {epoch}  -elbo/n {tot / len(loader):.4f}  noise std {model.log_noise.exp().item():.4f}")

    with torch.no_grad():
        xs = torch.linspace(-6, 6, 7).unsqueeze(-1).half()
        preds = torch.stack([model(xs) for _ in range(32)]).float()
        print("predictive mean", preds.mean(0).tolist())
        print("predictive std ", preds.std(0).tolist())


if __name__ == "__main__":
    main()
