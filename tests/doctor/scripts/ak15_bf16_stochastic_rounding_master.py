import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def stochastic_round_to_bf16(x_fp32, gen=None):
    bits = x_fp32.contiguous().view(torch.int32)
    noise = torch.randint(0, 1 << 16, bits.shape, dtype=torch.int32, generator=gen)
    rounded = (bits + noise) & -65536
    return rounded.view(torch.float32).to(torch.bfloat16)


class MovingAvgQuantAct(nn.Module):
    def __init__(self, bits=6, momentum=0.1):
        super().__init__()
        self.levels = 2 ** bits - 1
        self.momentum = momentum
        self.register_buffer("running_max", torch.ones(()))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_max.lerp_(x.detach().amax().to(self.running_max.dtype), self.momentum)
        s = self.running_max / self.levels
        xq = (x / s).round().clamp(0, self.levels) * s
        return x + (xq - x).detach()


class QuantMLP(nn.Module):
    def __init__(self, n_in=40, hidden=160, n_out=1):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.q1 = MovingAvgQuantAct()
        self.fc2 = nn.Linear(hidden, hidden)
        self.q2 = MovingAvgQuantAct()
        self.out = nn.Linear(hidden, n_out)

    def forward(self, x):
        h = self.q1(F.relu(self.fc1(x)))
        h = self.q2(F.relu(self.fc2(h)))
        return self.out(h).squeeze(-1)


def make_regression(n=2048, n_in=40):
    x = torch.rand(n, n_in) * 2 - 1
    y = torch.sin(3 * x[:, 0]) + x[:, 1] * x[:, 2] + 0.5 * x[:, 3:8].pow(2).sum(1) + 0.05 * torch.randn(n)
    return x, y


x, y = make_regression()
loader = DataLoader(TensorDataset(x, y), batch_size=128, shuffle=True)
model = QuantMLP().to(torch.bfloat16)
params = [p for p in model.parameters()]
master = [p.detach().float().clone() for p in params]
for m in master:
    m.requires_grad_(True)
opt = torch.optim.AdamW(master, lr=2e-3, weight_decay=1e-4)
gen = torch.Generator().manual_seed(7)

for epoch in range(4):
    running, n = 0.0, 0
    for xb, yb in loader:
        pred = model(xb.to(torch.bfloat16))
        loss = F.mse_loss(pred.float(), yb)
        model.zero_grad(set_to_none=True)
        loss.backward()
        for m, p in zip(master, params):
            m.grad = p.grad
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for m, p in zip(master, params):
                p.copy_(stochastic_round_to_bf16(m, gen))
        running += loss.item() * yb.numel()
        n += yb.numel()
    print(f"epoch {epoch} mse {running / n:.4f} act range {model.q1.running_max.item():.3f}/{model.q2.running_max.item():.3f}")
