import os
import tempfile
import torch
import torch.nn as nn

torch.manual_seed(0)
BACKCAST, FORECAST = 48, 12


def series_batch(n):
    t = torch.arange(BACKCAST + FORECAST, dtype=torch.float32) / (BACKCAST + FORECAST)
    slope = torch.randn(n, 1)
    curve = torch.randn(n, 1)
    season = torch.sin(2 * torch.pi * 5 * t + torch.rand(n, 1) * 6.28)
    y = slope * t + curve * t ** 2 + 0.3 * season + 0.05 * torch.randn(n, t.numel())
    return y[:, :BACKCAST], y[:, BACKCAST:]


def polynomial_basis(degree, length, offset=0, total=None):
    total = total or length
    t = (torch.arange(length, dtype=torch.float32) + offset) / total
    return torch.stack([t ** p for p in range(degree + 1)])


class TrendBlock(nn.Module):
    def __init__(self, hidden=128, degree=3):
        super().__init__()
        self.fc = nn.Sequential(
            nn.Linear(BACKCAST, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.theta_b = nn.Linear(hidden, degree + 1, bias=False)
        self.theta_f = nn.Linear(hidden, degree + 1, bias=False)
        total = BACKCAST + FORECAST
        self.register_buffer("basis_b", polynomial_basis(degree, BACKCAST, 0, total), persistent=False)
        self.register_buffer("basis_f", polynomial_basis(degree, FORECAST, BACKCAST, total), persistent=False)

    def forward(self, x):
        h = self.fc(x)
        backcast = (self.theta_b(h).unsqueeze(-1) * self.basis_b).sum(1)
        forecast = (self.theta_f(h).unsqueeze(-1) * self.basis_f).sum(1)
        return backcast, forecast


class NBeats(nn.Module):
    def __init__(self, n_blocks=3):
        super().__init__()
        self.blocks = nn.ModuleList([TrendBlock() for _ in range(n_blocks)])

    def forward(self, x):
        residual, forecast = x, 0.0
        for block in self.blocks:
            b, f = block(residual)
            residual = residual - b
            forecast = forecast + f
        return forecast


model = NBeats()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(150):
    x, y = series_batch(64)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step} mse {loss.item():.4f}")

ckpt_dir = tempfile.mkdtemp()
path = os.path.join(ckpt_dir, "nbeats.pt")
torch.save(model.state_dict(), path)

with torch.device("meta"):
    served = NBeats()
state = torch.load(path, map_location="cpu")
served.load_state_dict(state, assign=True)
served.eval()

x, y = series_batch(256)
with torch.no_grad():
    pred = served(x)
    smape = (2 * (pred - y).abs() / (pred.abs() + y.abs() + 1e-8)).mean()
    naive = (x[:, 1:] - x[:, :-1]).abs().mean(1, keepdim=True)
    mase = ((pred - y).abs() / naive).mean()
print(f"served sMAPE {smape.item():.4f} MASE {mase.item():.4f}")
