import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
L, B = 128, 16


def batch(n):
    t = torch.arange(L + 1, dtype=torch.float32)
    x = torch.zeros(n, L + 1)
    for k in range(3):
        x += torch.rand(n, 1) * torch.sin(2 * math.pi * t / (8 * (k + 1)) + torch.rand(n, 1) * 6.28)
    x += 0.05 * torch.randn(n, L + 1)
    return x[:, :-1].unsqueeze(1), x[:, 1:].unsqueeze(1)


class GatedResidual(nn.Module):
    def __init__(self, ch, skip_ch, dilation):
        super().__init__()
        self.dilation = dilation
        self.filt = nn.Conv1d(ch, ch, 2, dilation=dilation)
        self.gate = nn.Conv1d(ch, ch, 2, dilation=dilation)
        self.res = nn.Conv1d(ch, ch, 1)
        self.skip = nn.Conv1d(ch, skip_ch, 1)

    def forward(self, x):
        xp = F.pad(x, (self.dilation, 0))
        z = torch.tanh(self.filt(xp)) * torch.sigmoid(self.gate(xp))
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, ch=24, skip_ch=24, layers=8):
        super().__init__()
        self.inp = nn.Conv1d(1, ch, 1)
        self.layers = nn.ModuleList([GatedResidual(ch, skip_ch, 2 ** (i % 6)) for i in range(layers)])
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip_ch, skip_ch, 1), nn.ReLU(), nn.Conv1d(skip_ch, 1, 1))

    def forward(self, x):
        h = self.inp(x)
        skips = 0
        for layer in self.layers:
            h, s = layer(h)
            skips = skips + s
        return self.out(skips)


model = WaveNet().half()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_scale = 2.0 ** 13
growth_interval = 5

for step in range(25):
    x, y = batch(B)
    pred = model(x.half())
    loss = F.l1_loss(pred, y.half())
    opt.zero_grad(set_to_none=True)
    (loss * loss_scale).backward()
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(loss_scale)
    opt.step()
    if (step + 1) % growth_interval == 0:
        loss_scale *= 2.0
    if step % 5 == 0 or step == 24:
        print(f"step {step:2d} l1 {loss.item():.4f} scale {loss_scale:.0f}")

with torch.no_grad():
    x, y = batch(32)
    mae = (model(x.half()).float() - y).abs().mean()
print(f"eval mae {mae.item():.4f}")
