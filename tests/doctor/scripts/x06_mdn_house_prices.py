import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)

N_COMP = 5


def make_listings(n):
    area = torch.rand(n, 1) * 200 + 30
    rooms = torch.randint(1, 7, (n, 1)).float()
    dist = torch.rand(n, 1) * 30
    district = (torch.rand(n, 1) < 0.3).float()
    base = 1.8 * area + 12 * rooms - 3 * dist
    price = torch.where(district > 0, base * 1.6, base) + 15 * torch.randn(n, 1)
    return torch.cat([area / 100, rooms / 3, dist / 10, district, price], 1).to(torch.float16)


class MDN(nn.Module):
    def __init__(self, in_dim, hidden=64, k=N_COMP):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, k)
        self.mu = nn.Linear(hidden, k)
        nn.init.constant_(self.mu.bias, 300.0)
        self.log_sigma = nn.Linear(hidden, k)

    def forward(self, x):
        h = self.body(x)
        return F.log_softmax(self.pi(h), -1), self.mu(h), self.log_sigma(h).clamp(-5, 5)


def mdn_nll(log_pi, mu, log_sigma, y):
    z = (y - mu) / log_sigma.exp()
    log_comp = -0.5 * z.pow(2) - log_sigma - 0.5 * math.log(2 * math.pi)
    return -torch.logsumexp(log_pi + log_comp, dim=-1).mean()


def main():
    table = make_listings(4000)
    val_table = make_listings(500)
    x, y = table[:, :-1], table[:, -1:]
    x_val, y_val = val_table[:, :-1], val_table[:, -1:]
    model = MDN(x.size(1))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(8):
        perm = torch.randperm(len(x))
        total = 0.0
        for s in range(0, len(x), 200):
            idx = perm[s:s + 200]
            with torch.autocast("cpu", dtype=torch.float16):
                log_pi, mu, log_sigma = model(x[idx])
                loss = mdn_nll(log_pi, mu, log_sigma, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
            val = mdn_nll(*model(x_val), y_val).item()
        print(f"epoch {epoch} train nll {total / len(x):.3f} val nll {val:.3f}")
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
        log_pi, mu, _ = model(x_val[:5])
        print("expected prices", (log_pi.exp() * mu).sum(-1).tolist())


if __name__ == "__main__":
    main()
