"""A small model trained a few steps, then exported with torch.export and the exported program run: the doctor's
hooks see fake tensors while export traces and must leave them alone."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(3):
        loss = model(torch.randn(8, 6)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    program = torch.export.export(model.eval(), (torch.randn(4, 6),))
    print("exported output", tuple(program.module()(torch.randn(4, 6)).shape))
    print("run ok")


if __name__ == "__main__":
    main()
