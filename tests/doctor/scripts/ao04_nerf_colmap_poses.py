import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(0)


def look_at(eye, target=np.zeros(3), up=np.array([0.0, 1.0, 0.0])):
    f = target - eye
    f = f / np.linalg.norm(f)
    r = np.cross(f, up)
    r = r / np.linalg.norm(r)
    u = np.cross(r, f)
    c2w = np.eye(4)
    c2w[:3, 0], c2w[:3, 1], c2w[:3, 2], c2w[:3, 3] = r, -u, f, eye
    return c2w


class RayDataset(Dataset):
    def __init__(self, n_views=6, H=20, W=20):
        self.K = np.array([[25.0, 0.0, W / 2], [0.0, 25.0, H / 2], [0.0, 0.0, 1.0]])
        K_inv = np.linalg.inv(self.K)
        u, v = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
        pix = np.stack([u, v, np.ones_like(u)], -1).reshape(-1, 3)
        self.rays_o, self.rays_d, self.rgb = [], [], []
        for k in range(n_views):
            ang = 2 * np.pi * k / n_views
            c2w = look_at(np.array([3.0 * np.cos(ang), 0.5, 3.0 * np.sin(ang)]))
            d = pix @ K_inv.T @ c2w[:3, :3].T
            d = d / np.linalg.norm(d, axis=-1, keepdims=True)
            o = np.broadcast_to(c2w[:3, 3], d.shape)
            b = (o * d).sum(-1)
            hit = (b ** 2 - (o * o).sum(-1) + 0.8 ** 2) > 0
            img = np.where(hit[:, None], [200, 180, 40], [10, 10, 30]).astype(np.uint8)
            self.rays_o.append(o.copy())
            self.rays_d.append(d)
            self.rgb.append(img)
        self.rays_o = np.concatenate(self.rays_o)
        self.rays_d = np.concatenate(self.rays_d)
        self.rgb = np.concatenate(self.rgb)

    def __len__(self):
        return len(self.rgb)

    def __getitem__(self, i):
        return {"rays_o": torch.from_numpy(self.rays_o[i]), "rays_d": torch.from_numpy(self.rays_d[i]),
                "rgb": torch.from_numpy(self.rgb[i]).float() / 255.0}


class Embedder(nn.Module):
    def __init__(self, n_freqs):
        super().__init__()
        self.register_buffer("freqs", 2.0 ** torch.arange(n_freqs) * torch.pi)

    def forward(self, x):
        xb = x[..., None] * self.freqs
        return torch.cat([x, torch.sin(xb).flatten(-2), torch.cos(xb).flatten(-2)], -1)


class NeRF(nn.Module):
    def __init__(self, n_freqs=6, width=64):
        super().__init__()
        self.embed = Embedder(n_freqs)
        in_ch = 3 + 6 * n_freqs
        self.pts_linears = nn.ModuleList([nn.Linear(in_ch, width), nn.Linear(width, width)])
        self.out = nn.Linear(width, 4)

    def forward(self, pts):
        h = self.embed(pts)
        for lin in self.pts_linears:
            h = F.relu(lin(h))
        return self.out(h)


def render(model, rays_o, rays_d, near=1.5, far=4.5, n_samples=24):
    t = torch.linspace(near, far, n_samples, dtype=rays_o.dtype)
    pts = rays_o[:, None] + rays_d[:, None] * t[None, :, None]
    raw = model(pts)
    sigma = F.softplus(raw[..., 3])
    delta = torch.full_like(sigma, (far - near) / n_samples)
    alpha = 1 - torch.exp(-sigma * delta)
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1 - alpha[:, :-1]], -1), -1)
    w = alpha * trans
    return (w[..., None] * torch.sigmoid(raw[..., :3])).sum(1)


def main():
    ds = RayDataset()
    loader = DataLoader(ds, batch_size=200, shuffle=True)
    model = NeRF()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        for step, batch in enumerate(loader):
            pred = render(model, batch["rays_o"], batch["rays_d"])
            loss = F.mse_loss(pred, batch["rgb"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        psnr = -10 * torch.log10(loss.detach())
        print(f"epoch {epoch} loss {loss.item():.5f} psnr {psnr.item():.2f}")


if __name__ == "__main__":
    main()
