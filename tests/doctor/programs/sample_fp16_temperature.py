"""Sampling written by hand on an fp16 model: the logits are divided by a temperature clamped to 1e-5, which
overflows fp16, the softmax turns NaN, and `torch.multinomial` refuses the probabilities."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(32, 16), nn.Linear(16, 32)).half()
    ids = torch.tensor([[1, 2, 3]])
    with torch.no_grad():
        logits = model(ids)[:, -1]
        probs = torch.softmax(logits / max(0.0, 1e-5), dim=-1)
        print(torch.multinomial(probs, 1))


if __name__ == "__main__":
    main()
