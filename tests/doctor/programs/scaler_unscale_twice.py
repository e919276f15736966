"""fp16-style loss scaling with gradient clipping done twice per step: the loop unscales before its own clipping and
a helper unscales again before it clips."""
import torch
from torch import nn


def clip(scaler, optimizer, params, max_norm=1.0):
    scaler.unscale_(optimizer)  # a library helper that unscales on its own
    torch.nn.utils.clip_grad_norm_(params, max_norm)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    for _ in range(2):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip(scaler, optimizer, model.parameters())
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
