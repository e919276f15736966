import math
import tempfile
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
RES = 32
MODES = 8
WIDTH = 24


def make_darcy_batch(n, res=RES):
    # smooth random permeability fields and the solution of -lap(u) = a on a periodic grid
    k = torch.fft.fftfreq(res) * res
    kx, ky = torch.meshgrid(k, k, indexing="ij")
    k2 = kx ** 2 + ky ** 2
    decay = 1.0 / (1.0 + k2) ** 1.5
    noise = torch.randn(n, res, res, dtype=torch.complex64) * decay
    a = torch.fft.ifft2(noise).real
    a = (a - a.mean(dim=(1, 2), keepdim=True)) / a.std(dim=(1, 2), keepdim=True)
    a_hat = torch.fft.fft2(a)
    k2_safe = k2.clone()
    k2_safe[0, 0] = 1.0
    u_hat = a_hat / (4 * math.pi ** 2 * k2_safe / res ** 2)
    u_hat[:, 0, 0] = 0
    u = torch.fft.ifft2(u_hat).real
    u = u / u.abs().amax(dim=(1, 2), keepdim=True)
    return a.unsqueeze(1), u.unsqueeze(1)


class SpectralConv2d(nn.Module):
    def __init__(self, in_ch, out_ch, modes):
        super().__init__()
        self.modes = modes
        scale = 1.0 / (in_ch * out_ch)
        self.w1 = nn.Parameter(scale * torch.randn(in_ch, out_ch, modes, modes, dtype=torch.cfloat))
        self.w2 = nn.Parameter(scale * torch.randn(in_ch, out_ch, modes, modes, dtype=torch.cfloat))

    def forward(self, x):
        b, c, h, w = x.shape
        x_ft = torch.fft.rfft2(x, norm="ortho")
        out_ft = torch.zeros(b, self.w1.shape[1], h, w // 2 + 1, dtype=x_ft.dtype, device=x.device)
        m = self.modes
        out_ft[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :m, :m], self.w1)
        out_ft[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, -m:, :m], self.w2)
        return torch.fft.irfft2(out_ft, s=(h, w), norm="ortho")


class FNOBlock(nn.Module):
    def __init__(self, width, modes):
        super().__init__()
        self.spectral = SpectralConv2d(width, width, modes)
        self.pointwise = nn.Conv2d(width, width, 1)
        self.norm = nn.GroupNorm(4, width)

    def forward(self, x):
        return F.gelu(self.norm(self.spectral(x) + self.pointwise(x)))


class FNO2d(nn.Module):
    def __init__(self, width=WIDTH, modes=MODES, depth=3):
        super().__init__()
        self.lift = nn.Conv2d(3, width, 1)
        self.blocks = nn.ModuleList([FNOBlock(width, modes) for _ in range(depth)])
        self.proj = nn.Sequential(nn.Conv2d(width, 64, 1), nn.GELU(), nn.Conv2d(64, 1, 1))

    def forward(self, a):
        b, _, h, w = a.shape
        gx = torch.linspace(0, 1, h, device=a.device, dtype=a.dtype).view(1, 1, h, 1).expand(b, 1, h, w)
        gy = torch.linspace(0, 1, w, device=a.device, dtype=a.dtype).view(1, 1, 1, w).expand(b, 1, h, w)
        x = self.lift(torch.cat([a, gx, gy], dim=1))
        for blk in self.blocks:
            x = blk(x)
        return self.proj(x)


def rel_l2(pred, target):
    diff = (pred - target).flatten(1).norm(dim=1)
    return (diff / target.flatten(1).norm(dim=1)).mean()


def main():
    a_train, u_train = make_darcy_batch(64)
    a_test, u_test = make_darcy_batch(16)
    model = FNO2d().half()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    ckpt_dir = tempfile.mkdtemp(prefix="fno_")

    for epoch in range(3):
        perm = torch.randperm(a_train.shape[0])
        total = 0.0
        for i in range(0, a_train.shape[0], 16):
            idx = perm[i:i + 16]
            a = a_train[idx].half()
            u = u_train[idx].half()
            pred = model(a)
            loss = rel_l2(pred.float(), u.float())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} train rel-L2 {total / 4:.4f}")

    model.eval()
    with torch.no_grad():
        test_err = rel_l2(model(a_test.half()).float(), u_test)
    print(f"test rel-L2 {test_err.item():.4f}")
    torch.save(model.state_dict(), os.path.join(ckpt_dir, "fno.pt"))


if __name__ == "__main__":
    main()
