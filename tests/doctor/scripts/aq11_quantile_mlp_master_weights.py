import copy
import math
import torch
import torch.nn as nn

torch.manual_seed(0)

LOOKBACK, HORIZON = 96, 24
QUANTILES = torch.tensor([0.05, 0.25, 0.5, 0.75, 0.95])


def batch(n):
    t = torch.arange(LOOKBACK + HORIZON, dtype=torch.float32)
    season = torch.sin(2 * math.pi * (t + torch.randint(0, 24, (n, 1))) / 24)
    trend = torch.randn(n, 1) * 0.01 * t
    noise = torch.randn(n, LOOKBACK + HORIZON) * (0.1 + 0.2 * torch.rand(n, 1))
    y = season + trend + noise
    return y[:, :LOOKBACK], y[:, LOOKBACK:]


class QuantileMLP(nn.Module):
    def __init__(self, hidden=256):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(LOOKBACK, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, HORIZON * len(QUANTILES)),
        )

    def forward(self, x):
        loc = x[:, -24:].mean(1, keepdim=True)
        out = self.net(x - loc).view(-1, HORIZON, len(QUANTILES))
        return out + loc.unsqueeze(-1)


def pinball_loss(pred, target, q):
    diff = target.unsqueeze(-1) - pred
    return torch.maximum(q * diff, (q - 1) * diff).mean()


master = QuantileMLP()
model = copy.deepcopy(master).half()
master_params = list(master.parameters())
optimizer = torch.optim.AdamW(master_params, lr=1e-3, weight_decay=1e-4)
loss_scale = 1024.0

for step in range(50):
    x, y = batch(64)
    pred = model(x.half())
    loss = pinball_loss(pred.float(), y, QUANTILES)
    model.zero_grad(set_to_none=True)
    (loss * loss_scale).backward()

    for mp, p in zip(master_params, model.parameters()):
        mp.grad = p.grad / loss_scale
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    with torch.no_grad():
        for mp, p in zip(master_params, model.parameters()):
            p.copy_(mp)

    if step % 10 == 0:
        print(f"step {step:2d} pinball {loss.item():.4f}")

with torch.no_grad():
    x, y = batch(256)
    q = model(x.half()).float()
    coverage = ((y >= q[..., 0]) & (y <= q[..., -1])).float().mean()
    crps_approx = 2 * pinball_loss(q, y, QUANTILES)
print(f"90% interval coverage {coverage.item():.3f}  CRPS~ {crps_approx.item():.4f}")
