import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
D, Z = 784, 16


def synthetic_binary_images(n, flip=0.2):
    g = torch.Generator().manual_seed(3)
    prototypes = (torch.rand(10, D, generator=g) > 0.5).float()
    labels = torch.randint(0, 10, (n,))
    x = prototypes[labels]
    flips = (torch.rand(n, D) < flip).float()
    return (x + flips) % 2


class VAE(nn.Module):
    def __init__(self, hidden=256):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(D, hidden), nn.ReLU(), nn.Linear(hidden, 2 * Z))
        self.dec = nn.Sequential(nn.Linear(Z, hidden), nn.ReLU(), nn.Linear(hidden, D))

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def neg_elbo(x_logits, x, mu, logvar):
    recon = F.binary_cross_entropy_with_logits(x_logits, x, reduction="sum")
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (recon + kl) / x.shape[0], recon, kl


def main():
    data = synthetic_binary_images(2048)
    loader = DataLoader(TensorDataset(data.half()), batch_size=256, shuffle=True)
    model = VAE().half()
    opt = torch.optim.SGD(model.parameters(), lr=2e-3, momentum=0.9)

    for epoch in range(3):
        losses = []
        for (xb,) in loader:
            x_logits, mu, logvar = model(xb)
            loss, recon, kl = neg_elbo(x_logits, xb, mu, logvar)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        print(f"epoch {epoch}  -ELBO per image {sum(losses) / len(losses):.3f}")

    model.eval()
    with torch.no_grad():
        x_logits, mu, logvar = model(data[:256].half())
        loss, recon, kl = neg_elbo(x_logits, data[:256].half(), mu, logvar)
        print(f"eval -ELBO {loss.item():.3f}  recon {recon.item():.1f}  kl {kl.item():.2f}")
        samples = torch.sigmoid(model.dec(torch.randn(8, Z).half()))
        print("sample pixel mean", samples.float().mean().item())


if __name__ == "__main__":
    main()
