"""Pure-fp16 MLP on a synthetic tabular multiclass task with hand-rolled static loss scaling
(same initial scale GradScaler uses) and fp32 master weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LOSS_SCALE = 2.0 ** 16

model = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 128), nn.ReLU(),
                      nn.Linear(128, 10)).half()
master = [p.detach().float().clone().requires_grad_(True) for p in model.parameters()]
opt = torch.optim.SGD(master, lr=0.05, momentum=0.9)

W = torch.randn(20, 10)
for step in range(6):
    x = torch.randn(256, 20)
    y = (x @ W + 0.1 * torch.randn(256, 10)).argmax(1)
    logits = model(x.half())
    loss = F.cross_entropy(logits, y)

    model.zero_grad(set_to_none=True)
    (loss * LOSS_SCALE).backward()

    # copy fp16 grads to fp32 master weights and unscale
    for mp, p in zip(master, model.parameters()):
        mp.grad = p.grad.float() / LOSS_SCALE
    opt.step()
    with torch.no_grad():
        for mp, p in zip(master, model.parameters()):
            p.copy_(mp)
    print(f"step {step} loss {loss.item():.4f}")
