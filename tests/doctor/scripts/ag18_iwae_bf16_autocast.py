import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
D, Z, K_IW = 196, 8, 8


def binary_patterns(n):
    g = torch.Generator().manual_seed(11)
    basis = (torch.rand(6, D, generator=g) > 0.7).float()
    codes = (torch.rand(n, 6, generator=g) > 0.5).float()
    probs = (codes @ basis).clamp(0, 1) * 0.9 + 0.05
    return torch.bernoulli(probs, generator=g)


class IWAE(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(D, hidden), nn.Tanh(), nn.Linear(hidden, 2 * Z))
        self.decoder = nn.Sequential(nn.Linear(Z, hidden), nn.Tanh(), nn.Linear(hidden, D))

    def log_weights(self, x, k):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            stats = self.encoder(x)
        mu, logvar = stats.float().chunk(2, dim=-1)
        std = torch.exp(0.5 * logvar)
        eps = torch.randn(k, *mu.shape)
        z = mu + std * eps
        with torch.autocast("cpu", dtype=torch.bfloat16):
            x_logits = self.decoder(z)
        x_logits = x_logits.float()
        log_px_z = -F.binary_cross_entropy_with_logits(x_logits, x.expand(k, -1, -1), reduction="none").sum(-1)
        log_pz = (-0.5 * z ** 2 - 0.5 * math.log(2 * math.pi)).sum(-1)
        log_qz_x = (-0.5 * eps ** 2 - torch.log(std) - 0.5 * math.log(2 * math.pi)).sum(-1)
        return log_px_z + log_pz - log_qz_x

    def bound(self, x, k):
        log_w = self.log_weights(x, k)
        return (torch.logsumexp(log_w, dim=0) - math.log(k)).mean()


def main():
    data = binary_patterns(2000)
    train, test = data[:1600], data[1600:]
    loader = DataLoader(TensorDataset(train), batch_size=100, shuffle=True)
    model = IWAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(6):
        tot = 0.0
        for (xb,) in loader:
            loss = -model.bound(xb, K_IW)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        print(f"epoch {epoch}  -IWAE bound (k={K_IW}) {tot / len(loader):.3f}")

    model.eval()
    with torch.no_grad():
        elbo = model.bound(test, 1).item()
        iw = model.bound(test, 64).item()
    print(f"test ELBO {elbo:.3f}   test IWAE bound (k=64) {iw:.3f}   gap {iw - elbo:.3f}")


if __name__ == "__main__":
    main()
