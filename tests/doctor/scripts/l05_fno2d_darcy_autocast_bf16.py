"""2-D Fourier Neural Operator on a synthetic Darcy-flow-like problem, trained under CPU
bf16 autocast. The spectral convolution runs its FFTs in float32 (complex64 weights),
the pointwise 1x1 convolutions and MLPs run in bf16 under autocast."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
S, MODES, WIDTH = 32, 8, 24


def make_data(n):
    # random coefficient field a(x,y) -> smoothed response u = (I - 0.1*Laplacian)^-1 a (solved in Fourier space)
    a = torch.randn(n, 1, S, S)
    a = F.avg_pool2d(F.pad(a, (2, 2, 2, 2), mode="circular"), 5, stride=1)
    k = torch.fft.fftfreq(S) * S
    k2 = k[:, None] ** 2 + k[None, :] ** 2
    u = torch.fft.ifft2(torch.fft.fft2(a) / (1.0 + 0.01 * k2)).real
    xs = torch.linspace(0, 1, S)
    gx, gy = torch.meshgrid(xs, xs, indexing="ij")
    grid = torch.stack([gx, gy]).expand(n, 2, S, S)
    return torch.cat([a, grid], 1), u


class SpectralConv2d(nn.Module):
    def __init__(self, cin, cout, m1, m2):
        super().__init__()
        self.m1, self.m2 = m1, m2
        scale = 1 / (cin * cout)
        self.w1 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, dtype=torch.cfloat))
        self.w2 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, dtype=torch.cfloat))

    def forward(self, x):
        b, _, h, w = x.shape
        x_ft = torch.fft.rfft2(x.float())
        out = torch.zeros(b, self.w1.shape[1], h, w // 2 + 1, dtype=torch.cfloat, device=x.device)
        out[:, :, : self.m1, : self.m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, : self.m1, : self.m2], self.w1)
        out[:, :, -self.m1:, : self.m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, -self.m1:, : self.m2], self.w2)
        return torch.fft.irfft2(out, s=(h, w))


class FNO2d(nn.Module):
    def __init__(self):
        super().__init__()
        self.lift = nn.Conv2d(3, WIDTH, 1)
        self.spectral = nn.ModuleList([SpectralConv2d(WIDTH, WIDTH, MODES, MODES) for _ in range(3)])
        self.pointwise = nn.ModuleList([nn.Conv2d(WIDTH, WIDTH, 1) for _ in range(3)])
        self.proj = nn.Sequential(nn.Conv2d(WIDTH, 64, 1), nn.GELU(), nn.Conv2d(64, 1, 1))

    def forward(self, x):
        x = self.lift(x)
        for i, (sc, pw) in enumerate(zip(self.spectral, self.pointwise)):
            x = sc(x) + pw(x)
            if i < 2:
                x = F.gelu(x)
        return self.proj(x)


def main():
    t0 = time.time()
    xtr, ytr = make_data(200)
    xte, yte = make_data(40)
    model = FNO2d()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=40)
    for step in range(40):
        idx = torch.randint(0, 200, (16,))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = model(xtr[idx])
            loss = F.mse_loss(pred.float(), ytr[idx])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 10 == 0:
            print(f"step {step:2d} loss {loss.item():.5f}")
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        pred = model(xte).float()
    rel = ((pred - yte).flatten(1).norm(dim=1) / yte.flatten(1).norm(dim=1)).mean()
    assert torch.isfinite(rel)
    print(f"test rel L2 {rel.item():.4f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
