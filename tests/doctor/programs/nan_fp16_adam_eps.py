"""A model cast to fp16 and trained with Adam's default eps=1e-8: in fp16 optimizer state eps is 0 and the average of
squared small gradients underflows to 0, so the first update is 0 / 0 and the weights become NaN with a small learning
rate; the script exits 0."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(100, 16), nn.Flatten(), nn.Linear(16 * 4, 2)).half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    ids, labels = torch.randint(0, 100, (8, 4)), torch.randint(0, 2, (8,))
    for step in range(3):
        loss = nn.functional.cross_entropy(model(ids).float(), labels) * 1e-3  # a small loss, tiny gradients
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
