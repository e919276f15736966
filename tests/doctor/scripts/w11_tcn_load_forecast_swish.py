import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
AMP_DTYPE = torch.float16


class SwishFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        e = torch.exp(-x)
        return grad_out * (1 + e + x * e) / (1 + e) ** 2


class MemoryEfficientSwish(nn.Module):
    def forward(self, x):
        return SwishFn.apply(x)


class TemporalBlock(nn.Module):
    def __init__(self, in_ch, out_ch, dilation, k=3):
        super().__init__()
        self.pad = (k - 1) * dilation
        self.conv1 = nn.Conv1d(in_ch, out_ch, k, dilation=dilation)
        self.act = MemoryEfficientSwish()
        self.conv2 = nn.Conv1d(out_ch, out_ch, k, dilation=dilation)
        self.skip = nn.Conv1d(in_ch, out_ch, 1) if in_ch != out_ch else nn.Identity()

    def forward(self, x):
        h = self.act(self.conv1(F.pad(x, (self.pad, 0))))
        h = self.act(self.conv2(F.pad(h, (self.pad, 0))))
        return h + self.skip(x)


class TCNForecaster(nn.Module):
    def __init__(self, in_ch=3, hidden=32, horizon=24, levels=4):
        super().__init__()
        chans = [in_ch] + [hidden] * levels
        self.blocks = nn.ModuleList([TemporalBlock(chans[i], chans[i + 1], 2 ** i) for i in range(levels)])
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False)
        return self.head(x[:, :, -1])


def make_series(hours=24 * 400):
    t = torch.arange(hours, dtype=torch.float32)
    hour = t % 24
    temp = 15 + 12 * torch.sin(2 * math.pi * t / (24 * 365)) + 6 * torch.sin(2 * math.pi * (hour - 9) / 24) + torch.randn(hours)
    load = 1.0 + 0.4 * torch.sin(2 * math.pi * (hour - 7) / 24) + 0.02 * (temp - 18).abs() + 0.05 * torch.randn(hours)
    load = (load - load.mean()) / load.std()
    return torch.stack([load, temp, hour], dim=0)


def windows(series, lookback=96, horizon=24, n=384):
    starts = torch.randint(0, series.shape[1] - lookback - horizon, (n,))
    x = torch.stack([series[:, s:s + lookback] for s in starts.tolist()])
    y = torch.stack([series[0, s + lookback:s + lookback + horizon] for s in starts.tolist()])
    return x, y


def main():
    series = make_series()
    x, y = windows(series)
    model = TCNForecaster()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=3 * (x.shape[0] // 64))
    for epoch in range(3):
        perm = torch.randperm(x.shape[0])
        total = 0.0
        for i in range(0, x.shape[0], 64):
            idx = perm[i:i + 64]
            with torch.autocast("cpu", dtype=AMP_DTYPE):
                pred = model(x[idx])
            loss = F.mse_loss(pred.float(), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * idx.numel()
        print(f"epoch {epoch} train mse {total / x.shape[0]:.4f}")


if __name__ == "__main__":
    main()
