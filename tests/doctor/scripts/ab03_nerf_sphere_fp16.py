"""Tiny NeRF on a synthetic scene (a coloured sphere), MLP in fp16.

Uses 16 frequency bands (x * 2^k * pi) on positions for sharper detail.
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
H = W = 16
FOCAL = 20.0
N_SAMPLES = 32
NEAR, FAR = 2.0, 6.0


class PositionalEncoding(nn.Module):
    def __init__(self, n_freqs, include_input=True):
        super().__init__()
        self.include_input = include_input
        self.register_buffer("freq_bands", (2.0 ** torch.arange(n_freqs)) * math.pi)

    def forward(self, x):
        xb = x[..., None] * self.freq_bands  # (..., 3, L)
        enc = torch.cat([torch.sin(xb), torch.cos(xb)], dim=-1).flatten(-2)
        return torch.cat([x, enc], dim=-1) if self.include_input else enc

    def out_dim(self, d):
        return d * (2 * self.freq_bands.numel() + int(self.include_input))


class NeRF(nn.Module):
    def __init__(self, n_freqs_xyz=16, n_freqs_dir=4, width=64):
        super().__init__()
        self.pe_xyz = PositionalEncoding(n_freqs_xyz)
        self.pe_dir = PositionalEncoding(n_freqs_dir)
        self.trunk = nn.Sequential(
            nn.Linear(self.pe_xyz.out_dim(3), width), nn.ReLU(),
            nn.Linear(width, width), nn.ReLU(),
            nn.Linear(width, width), nn.ReLU(),
        )
        self.sigma = nn.Linear(width, 1)
        self.rgb = nn.Sequential(nn.Linear(width + self.pe_dir.out_dim(3), width // 2), nn.ReLU(), nn.Linear(width // 2, 3))

    def forward(self, xyz, d):
        h = self.trunk(self.pe_xyz(xyz))
        sigma = self.sigma(h)
        rgb = self.rgb(torch.cat([h, self.pe_dir(d)], -1))
        return sigma, rgb


def get_rays(c2w):
    i, j = torch.meshgrid(torch.arange(W, dtype=torch.float32), torch.arange(H, dtype=torch.float32), indexing="xy")
    dirs = torch.stack([(i - W * 0.5) / FOCAL, -(j - H * 0.5) / FOCAL, -torch.ones_like(i)], -1)
    rays_d = dirs @ c2w[:3, :3].T
    rays_o = c2w[:3, 3].expand(rays_d.shape)
    return rays_o.reshape(-1, 3), rays_d.reshape(-1, 3)


def pose_spherical(theta, radius=4.0):
    t = torch.tensor([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, radius], [0, 0, 0, 1]], dtype=torch.float32)
    c, s = math.cos(theta), math.sin(theta)
    rot = torch.tensor([[c, 0, -s, 0], [0, 1, 0, 0], [s, 0, c, 0], [0, 0, 0, 1]], dtype=torch.float32)
    return rot @ t


def gt_color(rays_o, rays_d):
    # analytic unit sphere at origin, colour = normal*0.5+0.5, background white
    d = F.normalize(rays_d, dim=-1)
    b = (rays_o * d).sum(-1)
    c = (rays_o ** 2).sum(-1) - 1.0
    disc = b * b - c
    hit = disc > 0
    t = -b - torch.sqrt(disc.clamp_min(0))
    n = F.normalize(rays_o + t[:, None] * d, dim=-1)
    return torch.where(hit[:, None], n * 0.5 + 0.5, torch.ones_like(n))


def render(model, rays_o, rays_d, dtype):
    t = torch.linspace(NEAR, FAR, N_SAMPLES)
    t = t + torch.rand(rays_o.shape[0], N_SAMPLES) * (FAR - NEAR) / N_SAMPLES
    pts = rays_o[:, None] + rays_d[:, None] * t[..., None]
    viewdirs = F.normalize(rays_d, dim=-1)[:, None].expand_as(pts)
    sigma, rgb = model(pts.to(dtype), viewdirs.to(dtype))
    sigma, rgb = F.relu(sigma.float().squeeze(-1)), torch.sigmoid(rgb.float())
    delta = torch.cat([t[:, 1:] - t[:, :-1], torch.full_like(t[:, :1], 1e3)], -1) * rays_d.norm(dim=-1, keepdim=True)
    alpha = 1 - torch.exp(-sigma * delta)
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1 - alpha + 1e-10], -1), -1)[:, :-1]
    w = alpha * trans
    return (w[..., None] * rgb).sum(1) + (1 - w.sum(-1, keepdim=True))


def main():
    dtype = torch.float16
    model = NeRF().to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=5e-4, eps=1e-4)
    poses = [pose_spherical(a) for a in torch.linspace(0, 2 * math.pi, 8)[:-1].tolist()]
    for it in range(30):
        c2w = poses[it % len(poses)]
        rays_o, rays_d = get_rays(c2w)
        target = gt_color(rays_o, rays_d)
        pred = render(model, rays_o, rays_d, dtype)
        loss = F.mse_loss(pred, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 5 == 0:
            psnr = -10 * torch.log10(loss.detach())
            print(f"iter {it:3d} loss {loss.item():.5f} psnr {psnr.item():.2f}")
    print("training finished")


if __name__ == "__main__":
    main()
