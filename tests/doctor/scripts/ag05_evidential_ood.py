import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
K = 3


def two_moons_plus(n):
    y = torch.randint(0, K, (n,))
    angle = torch.rand(n) * 3.1416
    base = torch.stack([torch.cos(angle), torch.sin(angle)], -1)
    offsets = torch.tensor([[0.0, 0.0], [1.0, -0.5], [-1.0, -0.5]])
    x = base * torch.where(y == 0, 1.0, -1.0).unsqueeze(-1) + offsets[y] + 0.15 * torch.randn(n, 2)
    return x, y


class EvidentialNet(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, K)

    def forward(self, x):
        evidence = torch.exp(self.head(self.body(x)))
        return evidence + 1.0


def dirichlet_kl_to_uniform(alpha):
    ones = torch.ones_like(alpha)
    s = alpha.sum(-1, keepdim=True)
    t1 = torch.lgamma(s) - torch.lgamma(alpha).sum(-1, keepdim=True) - torch.lgamma(ones.sum(-1, keepdim=True))
    t2 = ((alpha - ones) * (torch.digamma(alpha) - torch.digamma(s))).sum(-1, keepdim=True)
    return (t1 + t2).squeeze(-1)


def evidential_loss(alpha, y, epoch, anneal_epochs=10):
    y1 = nn.functional.one_hot(y, K).to(alpha.dtype)
    s = alpha.sum(-1, keepdim=True)
    nll = (y1 * (torch.digamma(s) - torch.digamma(alpha))).sum(-1)
    alpha_tilde = y1 + (1 - y1) * alpha
    coef = min(1.0, epoch / anneal_epochs)
    return (nll + coef * dirichlet_kl_to_uniform(alpha_tilde)).mean()


@torch.no_grad()
def summarize(model, x, y=None):
    alpha = model(x)
    s = alpha.sum(-1, keepdim=True)
    probs = alpha / s
    vacuity = K / s.squeeze(-1)
    entropy = torch.special.entr(probs).sum(-1)
    out = {"vacuity": vacuity.float().mean().item(), "entropy": entropy.float().mean().item()}
    if y is not None:
        out["acc"] = (probs.argmax(-1) == y).float().mean().item()
    return out


def main():
    x_tr, y_tr = two_moons_plus(4000)
    x_te, y_te = two_moons_plus(1000)
    x_ood = torch.randn(1000, 2) * 0.5 + torch.tensor([3.0, 3.0])
    model = EvidentialNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=200, shuffle=True)
    for epoch in range(12):
        model.train()
        tot = 0.0
        for xb, yb in loader:
            loss = evidential_loss(model(xb), yb, epoch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        print(f"epoch {epoch:2d}  evidential loss {tot / len(loader):.4f}")

    deployed = model.eval().half()
    print("in-distribution:", summarize(deployed, x_te.half(), y_te))
    print("out-of-distribution:", summarize(deployed, x_ood.half()))


if __name__ == "__main__":
    main()
