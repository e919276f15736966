"""Temporal convolutional network (dilated causal convs, residual blocks) forecasting sensor
readings, trained with accelerate in bf16 mixed precision. Windows are built with NumPy."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rng = np.random.default_rng(0)
CONTEXT, HORIZON, CH = 64, 16, 4


class CausalConv(nn.Module):
    def __init__(self, cin, cout, k, dilation):
        super().__init__()
        self.pad = (k - 1) * dilation
        self.conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(cin, cout, k, dilation=dilation))

    def forward(self, x):
        return self.conv(F.pad(x, (self.pad, 0)))


class TemporalBlock(nn.Module):
    def __init__(self, cin, cout, k, dilation):
        super().__init__()
        self.c1 = CausalConv(cin, cout, k, dilation)
        self.c2 = CausalConv(cout, cout, k, dilation)
        self.skip = nn.Conv1d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x):
        h = F.relu(self.c1(x))
        h = F.relu(self.c2(h))
        return F.relu(h + self.skip(x))


class TCN(nn.Module):
    def __init__(self, cin=CH, hidden=32, levels=4):
        super().__init__()
        self.blocks = nn.Sequential(
            *[TemporalBlock(cin if i == 0 else hidden, hidden, 3, 2**i) for i in range(levels)]
        )
        self.head = nn.Linear(hidden, HORIZON)

    def forward(self, x):  # (B, T, C)
        h = self.blocks(x.transpose(1, 2))
        return self.head(h[:, :, -1])


# multichannel sensor log, standardised with NumPy
n = 3000
t = np.arange(n)
raw = np.stack(
    [np.sin(2 * np.pi * t / p) + 0.1 * rng.standard_normal(n) for p in (50, 80, 120, 200)], axis=1
)
raw = (raw - raw[:2400].mean(0)) / raw[:2400].std(0)
win = np.lib.stride_tricks.sliding_window_view(raw, CONTEXT + HORIZON, axis=0).transpose(0, 2, 1)
X = win[:, :CONTEXT, :]
Y = win[:, CONTEXT:, 0]
train = TensorDataset(torch.from_numpy(X[:2200].copy()), torch.from_numpy(Y[:2200].copy()))
valid = TensorDataset(torch.from_numpy(X[2300:].copy()), torch.from_numpy(Y[2300:].copy()))

accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = TCN()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
train_dl = DataLoader(train, batch_size=64, shuffle=True)
valid_dl = DataLoader(valid, batch_size=256)
model, optimizer, train_dl, valid_dl = accelerator.prepare(model, optimizer, train_dl, valid_dl)

for epoch in range(2):
    model.train()
    for xb, yb in train_dl:
        pred = model(xb)
        loss = F.mse_loss(pred.float(), yb.float())
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    errs = []
    with torch.no_grad():
        for xb, yb in valid_dl:
            p = model(xb)
            errs.append(accelerator.gather_for_metrics((p.float() - yb.float()).abs().mean()))
    accelerator.print(f"epoch {epoch} train mse {loss.item():.4f} valid mae {torch.stack(errs).mean().item():.4f}")
