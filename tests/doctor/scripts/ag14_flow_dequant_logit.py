import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

torch.manual_seed(0)
SIDE = 8
D = SIDE * SIDE


def saturated_glyphs(n):
    g = torch.Generator().manual_seed(5)
    yy, xx = torch.meshgrid(torch.arange(SIDE), torch.arange(SIDE), indexing="ij")
    cx = torch.randint(2, 6, (n, 1, 1), generator=g)
    cy = torch.randint(2, 6, (n, 1, 1), generator=g)
    r = torch.randint(1, 4, (n, 1, 1), generator=g)
    disk = ((xx - cx) ** 2 + (yy - cy) ** 2 <= r ** 2).float()
    img = disk * 255 + (1 - disk) * torch.randint(0, 40, (n, SIDE, SIDE), generator=g)
    return img.clamp(0, 255).to(torch.uint8).view(n, D)


def dequantize_collate(batch):
    x = torch.stack(batch).float()
    x = (x + torch.rand_like(x)) / 256.0
    return x.half()


class LogitTransform(nn.Module):
    def __init__(self, eps=1e-8):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        y = torch.log(x + self.eps) - torch.log(1 - x + self.eps)
        logdet = -(torch.log(x + self.eps) + torch.log(1 - x + self.eps)).sum(-1)
        return y, logdet


class Coupling(nn.Module):
    def __init__(self, mask, hidden=128):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(nn.Linear(D, hidden), nn.ReLU(), nn.Linear(hidden, 2 * D))

    def forward(self, x):
        s, t = self.net(x * self.mask).chunk(2, dim=-1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        return x * s.exp() + t, s.sum(-1)


class PixelFlow(nn.Module):
    def __init__(self, n_layers=4):
        super().__init__()
        self.pre = LogitTransform()
        checker = (torch.arange(D) % 2).float()
        self.layers = nn.ModuleList([Coupling(checker if i % 2 == 0 else 1 - checker) for i in range(n_layers)])

    def log_prob(self, x):
        z, logdet = self.pre(x)
        for layer in self.layers:
            z, ld = layer(z)
            logdet = logdet + ld
        log_pz = -0.5 * (z ** 2).sum(-1) - 0.5 * D * math.log(2 * math.pi)
        return log_pz + logdet


def bits_per_dim(log_prob):
    return (-(log_prob.float().mean()) / D + math.log(256)) / math.log(2)


def main():
    images = saturated_glyphs(2048)
    loader = DataLoader(list(images), batch_size=128, shuffle=True, collate_fn=dequantize_collate)
    flow = PixelFlow().half()
    opt = torch.optim.SGD(flow.parameters(), lr=1e-3, momentum=0.9)
    for epoch in range(5):
        bpd = []
        for xb in loader:
            loss = -flow.log_prob(xb).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(flow.parameters(), 10.0)
            opt.step()
            bpd.append(bits_per_dim(-loss.detach().unsqueeze(0)).item())
        print(f"epoch {epoch}  bits/dim {sum(bpd) / len(bpd):.4f}")


if __name__ == "__main__":
    main()
