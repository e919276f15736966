"""Train a small 1-D Fourier Neural Operator on synthetic Burgers-like data.

The model and the data are cast to bfloat16 up front to halve activation memory.
"""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_GRID = 128
MODES = 16
WIDTH = 32
BATCH = 16
STEPS = 30


def make_data(n):
    # random smooth initial conditions u0(x) -> "solution" u(x) obtained by damping high modes
    x = torch.linspace(0, 1, N_GRID)
    k = torch.arange(1, 9).float()
    coef = torch.randn(n, 8) / k
    u0 = (coef[:, :, None] * torch.sin(2 * math.pi * k[None, :, None] * x[None, None, :])).sum(1)
    damp = torch.exp(-0.05 * k ** 2)
    u1 = ((coef * damp)[:, :, None] * torch.sin(2 * math.pi * k[None, :, None] * x[None, None, :] + 0.3)).sum(1)
    grid = x.expand(n, N_GRID)
    inp = torch.stack([u0, grid], dim=-1)  # (n, N, 2)
    return inp, u1.unsqueeze(-1)


class SpectralConv1d(nn.Module):
    def __init__(self, in_ch, out_ch, modes):
        super().__init__()
        self.modes = modes
        scale = 1.0 / (in_ch * out_ch)
        # real/imag parts stored as a trailing dim of size 2
        self.weights = nn.Parameter(scale * torch.rand(in_ch, out_ch, modes, 2))

    def forward(self, x):  # x: (B, C, N)
        b, c, n = x.shape
        x_ft = torch.fft.rfft(x)
        w = torch.view_as_complex(self.weights)
        out_ft = torch.zeros(b, w.shape[1], n // 2 + 1, dtype=x_ft.dtype, device=x.device)
        out_ft[:, :, : self.modes] = torch.einsum("bix,iox->box", x_ft[:, :, : self.modes], w)
        return torch.fft.irfft(out_ft, n=n)


class FNO1d(nn.Module):
    def __init__(self, modes, width, n_layers=4):
        super().__init__()
        self.lift = nn.Linear(2, width)
        self.convs = nn.ModuleList([SpectralConv1d(width, width, modes) for _ in range(n_layers)])
        self.ws = nn.ModuleList([nn.Conv1d(width, width, 1) for _ in range(n_layers)])
        self.proj1 = nn.Linear(width, 64)
        self.proj2 = nn.Linear(64, 1)

    def forward(self, x):
        x = self.lift(x).permute(0, 2, 1)
        for i, (conv, w) in enumerate(zip(self.convs, self.ws)):
            x = conv(x) + w(x)
            if i < len(self.convs) - 1:
                x = F.gelu(x)
        x = x.permute(0, 2, 1)
        return self.proj2(F.gelu(self.proj1(x)))


def main():
    t0 = time.time()
    train_x, train_y = make_data(256)
    test_x, test_y = make_data(64)

    model = FNO1d(MODES, WIDTH).to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)

    for step in range(STEPS):
        idx = torch.randint(0, train_x.shape[0], (BATCH,))
        xb = train_x[idx].to(torch.bfloat16)
        yb = train_y[idx].to(torch.bfloat16)
        pred = model(xb)
        loss = F.mse_loss(pred, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:3d}  loss {loss.item():.5f}")

    model.eval()
    with torch.no_grad():
        pred = model(test_x.to(torch.bfloat16)).float()
        rel = (pred - test_y).norm() / test_y.norm()
    print(f"test relative L2 error {rel.item():.4f}  ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
