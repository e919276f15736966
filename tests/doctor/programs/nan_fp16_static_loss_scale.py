"""A pure-fp16 model trained with a hand-made static loss scale of 2**16: the scaled fp16 loss is inf before backward
starts, and the script exits 0."""
import torch
from torch import nn

LOSS_SCALE = 2.0 ** 16


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)).half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for step in range(2):
        loss = (model(torch.randn(4, 8, dtype=torch.float16)) - 1).pow(2).mean()
        (loss * LOSS_SCALE).backward()
        for p in model.parameters():
            p.grad.div_(LOSS_SCALE)
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
