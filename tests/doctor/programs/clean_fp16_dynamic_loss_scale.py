"""Pure fp16 weights with fp32 master copies and a hand-written dynamic loss scale, as older mixed-precision code
does it: the first scales overflow the fp16 gradients, the script skips those steps and halves the scale until the
gradients fit, then trains. No fault: the overflowed gradients never reach the weights."""
import torch
import torch.nn.functional as F
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1)).half()
    master = [p.detach().float().clone().requires_grad_(True) for p in model.parameters()]
    opt = torch.optim.SGD(master, lr=0.05)
    scale, skipped = 2.0 ** 20, 0
    x, y = torch.randn(64, 16), torch.randn(64, 1)
    for step in range(12):
        loss = F.mse_loss(model(x.half()).float(), y)
        model.zero_grad(set_to_none=True)
        (loss * scale).backward()
        grads = [p.grad.float() / scale for p in model.parameters()]
        if not all(bool(torch.isfinite(g).all()) for g in grads):
            scale, skipped = scale / 2, skipped + 1
            continue
        for m, g in zip(master, grads):
            m.grad = g
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for p, m in zip(model.parameters(), master):
                p.copy_(m)
    print(f"loss {loss.item():.4f}, {skipped} steps skipped, scale {scale:.0f}")
    print("run ok")


if __name__ == "__main__":
    main()
