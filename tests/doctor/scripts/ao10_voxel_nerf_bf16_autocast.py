import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)


class VoxelRadianceField(nn.Module):
    def __init__(self, res=16, feat=8, width=32, n_freqs=4):
        super().__init__()
        self.grid = nn.Parameter(0.1 * torch.randn(1, feat, res, res, res))
        self.density_grid = nn.Parameter(torch.zeros(1, 1, res, res, res))
        self.register_buffer("freqs", 2.0 ** torch.arange(n_freqs))
        self.color_mlp = nn.Sequential(nn.Linear(feat + 3 + 6 * n_freqs, width), nn.ReLU(), nn.Linear(width, 3))

    def encode_dirs(self, d):
        db = d[..., None] * self.freqs
        return torch.cat([d, torch.sin(db).flatten(-2), torch.cos(db).flatten(-2)], -1)

    def forward(self, pts, dirs):
        R, S, _ = pts.shape
        g = pts.view(1, R, S, 1, 3) / 1.5
        feats = F.grid_sample(self.grid, g, align_corners=True).view(-1, R, S).permute(1, 2, 0)
        sigma = F.grid_sample(self.density_grid, g, align_corners=True).view(R, S)
        d_enc = self.encode_dirs(dirs.float())[:, None].expand(-1, S, -1)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            rgb = torch.sigmoid(self.color_mlp(torch.cat([feats, d_enc], -1)))
        return rgb.float(), F.softplus(sigma - 1.0)


def composite(rgb, sigma, z_vals):
    deltas = z_vals[:, 1:] - z_vals[:, :-1]
    deltas = torch.cat([deltas, torch.full_like(deltas[:, :1], 1e10)], -1)
    alpha = 1 - torch.exp(-sigma * deltas)
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1 - alpha + 1e-10], -1), -1)[:, :-1]
    w = alpha * trans
    return (w[..., None] * rgb).sum(1), (w * z_vals).sum(1), w.sum(1)


def make_rays(n_views=5, H=16, W=16, focal=20.0):
    K = np.array([[focal, 0, W / 2], [0, focal, H / 2], [0, 0, 1.0]])
    u, v = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    pix = np.stack([u, v, np.ones_like(u)], -1).reshape(-1, 3) @ np.linalg.inv(K).T
    O, D, C = [], [], []
    for k in range(n_views):
        a = 2 * np.pi * k / n_views
        eye = np.array([2.5 * np.sin(a), 0.0, 2.5 * np.cos(a)])
        f = -eye / np.linalg.norm(eye)
        r = np.cross(f, [0, 1, 0]); r /= np.linalg.norm(r)
        u_ = np.cross(r, f)
        d = pix @ np.stack([r, -u_, f], 1).T
        d /= np.linalg.norm(d, axis=-1, keepdims=True)
        b = d @ eye
        hit = b ** 2 - eye @ eye + 0.7 ** 2 > 0
        O.append(np.broadcast_to(eye, d.shape)); D.append(d)
        C.append(np.where(hit[:, None], [0.2, 0.7, 0.3], [1.0, 1.0, 1.0]))
    cat = lambda xs: torch.from_numpy(np.concatenate(xs)).float()
    return cat(O), cat(D), cat(C)


def main():
    rays_o, rays_d, target = make_rays()
    model = VoxelRadianceField()
    opt = torch.optim.Adam(model.parameters(), lr=2e-2)
    t = torch.linspace(0.0, 1.0, 32)
    for it in range(60):
        idx = torch.randint(0, len(rays_o), (256,))
        o, d, c = rays_o[idx], rays_d[idx], target[idx]
        z = (1.0 * (1 - t) + 4.0 * t).expand(len(idx), -1)
        z = z + (torch.rand_like(z) - 0.5) * (3.0 / 32)
        pts = o[:, None] + d[:, None] * z[..., None]
        rgb, sigma = model(pts, d)
        color, depth, acc = composite(rgb, sigma, z)
        color = color + (1 - acc[:, None])
        loss = F.mse_loss(color, c)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 10 == 0 or it == 59:
            print(f"iter {it:2d} loss {loss.item():.5f} psnr {-10 * torch.log10(loss).item():.2f} depth {depth.mean().item():.3f}")


if __name__ == "__main__":
    main()
