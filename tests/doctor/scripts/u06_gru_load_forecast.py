"""GRU forecaster for hourly electricity load (synthetic), trained in fp32 with gradient clipping."""
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
HIST, HORIZON = 48, 12


def series(n_steps=2000):
    t = torch.arange(n_steps, dtype=torch.float32)
    daily = torch.sin(2 * math.pi * t / 24)
    weekly = 0.5 * torch.sin(2 * math.pi * t / (24 * 7))
    return 100 + 20 * daily + 10 * weekly + 3 * torch.randn(n_steps)


s = series()
mean, std = s.mean(), s.std()
s = (s - mean) / std


class Forecaster(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.gru = nn.GRU(1, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, HORIZON)

    def forward(self, x):
        out, _ = self.gru(x.unsqueeze(-1))
        return self.head(out[:, -1])


def batch(bs=32):
    starts = torch.randint(0, len(s) - HIST - HORIZON, (bs,))
    x = torch.stack([s[i:i + HIST] for i in starts])
    y = torch.stack([s[i + HIST:i + HIST + HORIZON] for i in starts])
    return x, y


model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=15)
for step in range(15):
    x, y = batch()
    loss = nn.functional.smooth_l1_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 3 == 0 or step == 14:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    x, y = batch(64)
    mae = (model(x) - y).abs().mean() * std
print(f"val MAE (MW) {mae.item():.2f}")
assert torch.isfinite(mae)
