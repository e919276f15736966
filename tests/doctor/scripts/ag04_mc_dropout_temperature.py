import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
K = 4


def make_split(n, noise=2.4):
    g = torch.Generator().manual_seed(7)
    centers = torch.randn(K, 16, generator=g) * 1.5
    y = torch.randint(0, K, (n,))
    return centers[y] + noise * torch.randn(n, 16), y


class DropoutMLP(nn.Module):
    def __init__(self, d=16, hidden=128, p=0.2):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, K),
        )

    def forward(self, x):
        return self.net(x)


def mc_logits(model, x, samples=20):
    model.train()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        outs = [model(x).float() for _ in range(samples)]
    model.eval()
    return torch.stack(outs)


def fit_temperature(logits, labels):
    log_t = torch.zeros((), requires_grad=True)
    opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=100)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(logits / log_t.exp(), labels)
        loss.backward()
        return loss

    opt.step(closure)
    return log_t.exp().detach()


def ece(probs, labels, n_bins=15):
    conf, pred = probs.max(-1)
    edges = torch.linspace(0, 1, n_bins + 1)
    err = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            err += m.float().mean() * ((pred[m] == labels[m]).float().mean() - conf[m].mean()).abs()
    return err.item()


def main():
    x_tr, y_tr = make_split(5000)
    x_val, y_val = make_split(1000)
    x_te, y_te = make_split(1000)
    model = DropoutMLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=128, shuffle=True)
    for epoch in range(5):
        model.train()
        tot = 0.0
        for xb, yb in loader:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(xb)
            loss = F.cross_entropy(logits.float(), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        print(f"epoch {epoch}  loss {tot / len(loader):.4f}")

    val_logits = mc_logits(model, x_val).mean(0)
    T = fit_temperature(val_logits, y_val)
    te_logits = mc_logits(model, x_te)
    probs = torch.softmax(te_logits / T, dim=-1).mean(0)
    entropy = -(probs * torch.log(probs.clamp_min(torch.finfo(probs.dtype).tiny))).sum(-1)
    nll = F.nll_loss(torch.log(probs.clamp_min(1e-12)), y_te)
    print(f"temperature {T.item():.3f}  test nll {nll.item():.4f}  ece {ece(probs, y_te):.4f}  "
          f"mean predictive entropy {entropy.mean().item():.4f}")


if __name__ == "__main__":
    main()
