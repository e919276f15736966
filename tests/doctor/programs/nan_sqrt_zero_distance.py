"""A siamese model trained with a contrastive loss whose distance is written by hand as sqrt(sum((a - b)^2)): a pair
of identical inputs has distance 0, and the backward of sqrt at 0 is inf, so the gradients and then the weights go
NaN in fp32 as well; the script exits 0."""
import torch
from torch import nn


def distance(a, b):
    return (a - b).pow(2).sum(-1).sqrt()


def main():
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(encoder.parameters(), lr=0.05)
    for step in range(3):
        x = torch.randn(8, 6)
        y = x.clone()
        y[4:] = torch.randn(4, 6)  # the first four pairs are identical
        same = torch.tensor([1.0] * 4 + [0.0] * 4)
        d = distance(encoder(x), encoder(y))
        loss = (same * d.pow(2) + (1 - same) * (1.0 - d).clamp_min(0).pow(2)).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
