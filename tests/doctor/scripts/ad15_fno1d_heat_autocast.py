import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(15)
N_GRID, MODES, WIDTH = 128, 16, 32
NU, T_FINAL = 0.01, 1.0


def heat_pairs(n):
    k = torch.fft.rfftfreq(N_GRID, d=1.0 / N_GRID)
    coeff = torch.randn(n, k.shape[0], dtype=torch.complex64) / (1 + k) ** 2
    u0 = torch.fft.irfft(coeff * N_GRID, n=N_GRID)
    decay = torch.exp(-NU * (2 * torch.pi * k) ** 2 * T_FINAL)
    u1 = torch.fft.irfft(torch.fft.rfft(u0) * decay, n=N_GRID)
    scale = u0.abs().amax(-1, keepdim=True)
    return (u0 / scale).unsqueeze(1), (u1 / scale).unsqueeze(1)


class SpectralConv1d(nn.Module):
    def __init__(self, c_in, c_out, modes):
        super().__init__()
        self.modes = modes
        self.weight = nn.Parameter(torch.randn(c_in, c_out, modes, dtype=torch.cfloat) / (c_in * c_out))

    def forward(self, x):
        with torch.autocast("cpu", enabled=False):
            x = x.float()
            x_ft = torch.fft.rfft(x, norm="ortho")
            out_ft = torch.zeros(x.shape[0], self.weight.shape[1], x_ft.shape[-1], dtype=torch.cfloat)
            out_ft[..., :self.modes] = torch.einsum("bix,iox->box", x_ft[..., :self.modes], self.weight)
            return torch.fft.irfft(out_ft, n=x.shape[-1], norm="ortho")


class FNO1d(nn.Module):
    def __init__(self, width=WIDTH, modes=MODES, depth=4):
        super().__init__()
        self.lift = nn.Conv1d(2, width, 1)
        self.spectral = nn.ModuleList([SpectralConv1d(width, width, modes) for _ in range(depth)])
        self.local = nn.ModuleList([nn.Conv1d(width, width, 1) for _ in range(depth)])
        self.head = nn.Sequential(nn.Conv1d(width, 64, 1), nn.GELU(), nn.Conv1d(64, 1, 1))

    def forward(self, u):
        grid = torch.linspace(0, 1, u.shape[-1]).expand(u.shape[0], 1, -1)
        x = self.lift(torch.cat([u, grid], 1))
        for i, (spec, loc) in enumerate(zip(self.spectral, self.local)):
            x = spec(x) + loc(x)
            if i < len(self.spectral) - 1:
                x = F.gelu(x)
        return self.head(x)


def main():
    u0, u1 = heat_pairs(256)
    u0_te, u1_te = heat_pairs(64)
    model = FNO1d()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5 * 8)

    for epoch in range(5):
        perm = torch.randperm(256)
        running = 0.0
        for i in range(0, 256, 32):
            idx = perm[i:i + 32]
            with torch.autocast("cpu", dtype=torch.bfloat16):
                pred = model(u0[idx])
            err = (pred.float() - u1[idx]).flatten(1).norm(dim=1) / u1[idx].flatten(1).norm(dim=1)
            loss = err.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            running += loss.item()
        print(f"epoch {epoch} rel-L2 {running / 8:.4f}")

    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        pred = model(u0_te)
    test = ((pred.float() - u1_te).flatten(1).norm(dim=1) / u1_te.flatten(1).norm(dim=1)).mean()
    print(f"test rel-L2 {test.item():.4f}")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(prefix="fno1d_"), "fno1d.pt"))


if __name__ == "__main__":
    main()
