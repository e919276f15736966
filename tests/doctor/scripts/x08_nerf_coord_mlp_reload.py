import math
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(6)

RES = 48


class PositionalEncoding(nn.Module):
    def __init__(self, n_freqs=8, include_input=True):
        super().__init__()
        self.include_input = include_input
        self.register_buffer("freq_bands", 2.0 ** torch.arange(n_freqs) * math.pi, persistent=False)

    def out_dim(self, in_dim):
        return in_dim * (2 * len(self.freq_bands) + int(self.include_input))

    def forward(self, x):
        xb = x.unsqueeze(-1) * self.freq_bands
        enc = torch.cat([torch.sin(xb), torch.cos(xb)], dim=-1).flatten(-2)
        return torch.cat([x, enc], dim=-1) if self.include_input else enc


class CoordMLP(nn.Module):
    def __init__(self, n_freqs=8, hidden=128):
        super().__init__()
        self.pos_enc = PositionalEncoding(n_freqs)
        d = self.pos_enc.out_dim(2)
        self.mlp = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 3), nn.Sigmoid())

    def forward(self, coords):
        return self.mlp(self.pos_enc(coords))


def make_image():
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, RES), torch.linspace(-1, 1, RES), indexing="ij")
    r = torch.sqrt(xs ** 2 + ys ** 2)
    img = torch.stack([0.5 + 0.5 * torch.sin(8 * r), 0.5 + 0.5 * torch.cos(5 * xs),
                       (torch.sign(torch.sin(6 * ys)) + 1) / 2], -1)
    return torch.stack([xs, ys], -1).view(-1, 2), img.view(-1, 3)


def psnr(pred, target):
    return -10 * torch.log10(((pred - target) ** 2).mean())


def main():
    coords, colors = make_image()
    model = CoordMLP()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(400):
        idx = torch.randint(0, len(coords), (1024,))
        loss = ((model(coords[idx]) - colors[idx]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            print(f"step {step} mse {loss.item():.4f}")
    ckpt_dir = tempfile.mkdtemp()
    path = os.path.join(ckpt_dir, "coord_mlp.pt")
    torch.save(model.state_dict(), path)

    with torch.device("meta"):
        restored = CoordMLP()
    restored.load_state_dict(torch.load(path, map_location="cpu"), assign=True)
    restored.eval()
    with torch.no_grad():
        pred = torch.cat([restored(c) for c in coords.split(4096)])
    print(f"restored psnr {psnr(pred, colors).item():.2f} dB")


if __name__ == "__main__":
    main()
