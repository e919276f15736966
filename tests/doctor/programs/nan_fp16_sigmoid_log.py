"""A GAN discriminator in fp16 whose sigmoid saturates: its probabilities round to exactly 1, and the hand-written
BCE takes log(1 - p) = log(0); the gradients turn inf/NaN and the script exits 0."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    disc = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid()).half()
    with torch.no_grad():
        disc[2].bias.fill_(12.0)  # a discriminator that has become very sure
    opt = torch.optim.SGD(disc.parameters(), lr=1e-3)
    for step in range(2):
        p = disc(torch.randn(8, 4, dtype=torch.float16))
        loss = -torch.log(1 - p).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item()}")


if __name__ == "__main__":
    main()
