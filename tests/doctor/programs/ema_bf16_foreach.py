"""An EMA of the weights kept in bf16 to save memory while the trained model stays fp32: the foreach lerp that
updates it gets lists of two dtypes."""
import copy

import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    ema = copy.deepcopy(model).to(torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()
    opt.step()
    with torch.no_grad():
        torch._foreach_lerp_(list(ema.parameters()), list(model.parameters()), 0.01)


if __name__ == "__main__":
    main()
