"""Pure fp16 weights with fp32 master copies and a fixed loss scale of 2**20 that skips a step whose gradients
overflow: every step overflows and is skipped, so the model never trains while the loss stays finite and the
script exits 0."""
import torch
import torch.nn.functional as F
from torch import nn

LOSS_SCALE = 2.0 ** 20


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1)).half()
    master = [p.detach().float().clone().requires_grad_(True) for p in model.parameters()]
    opt = torch.optim.SGD(master, lr=0.05)
    x, y = torch.randn(64, 16), torch.randn(64, 1)
    skipped = 0
    for step in range(4):
        loss = F.mse_loss(model(x.half()).float(), y)
        model.zero_grad(set_to_none=True)
        (loss * LOSS_SCALE).backward()
        grads = [p.grad.float() / LOSS_SCALE for p in model.parameters()]
        if not all(bool(torch.isfinite(g).all()) for g in grads):
            skipped += 1
            continue
        for m, g in zip(master, grads):
            m.grad = g
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for p, m in zip(model.parameters(), master):
                p.copy_(m)
    print(f"loss {loss.item():.4f}, {skipped} of 4 steps skipped")


if __name__ == "__main__":
    main()
