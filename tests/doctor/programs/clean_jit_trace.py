"""A small model trained a few steps, then traced with torch.jit.trace (whose check re-runs the graph), saved, loaded
and run: the doctor's dispatch mode must not break the trace, and its hooks must not record their own checks into
the traced graph."""
import os
import tempfile

import torch
from torch import nn


class Pairwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 8)

    def forward(self, x):
        v = self.proj(x).view(x.shape[0], 2, 4)
        return 0.5 * (v.sum(1).pow(2) - v.pow(2).sum(1)).sum(-1)


def main():
    torch.manual_seed(0)
    model = Pairwise()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(3):
        loss = model(torch.randn(8, 6)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    example = torch.randn(4, 6)
    traced = torch.jit.trace(model.eval(), (example,))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pairwise.pt")
        traced.save(path)
        loaded = torch.jit.load(path)
        print("max difference", (loaded(example) - model(example)).abs().max().item())
    print("run ok")


if __name__ == "__main__":
    main()
