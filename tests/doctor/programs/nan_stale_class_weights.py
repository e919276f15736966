"""Inverse-frequency class weights computed once before training from counts that include an empty class: 1 / 0 is
inf and the normalisation makes every weight NaN, so the weighted loss is NaN at every step although the model's
outputs stay finite; the script exits 0."""
import torch
from torch import nn


def class_weights(counts):
    inv = 1.0 / counts
    return inv / inv.sum() * len(counts)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    counts = torch.tensor([30.0, 12.0, 5.0, 0.0])
    weights = class_weights(counts)
    for step in range(2):
        x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
        logp = torch.log_softmax(model(x), dim=-1)
        loss = -(weights[y] * logp.gather(1, y[:, None]).squeeze(1)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
