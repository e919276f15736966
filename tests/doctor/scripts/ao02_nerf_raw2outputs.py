import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)
DTYPE = torch.float16


def posenc(x, n_freqs):
    out = [x]
    for i in range(n_freqs):
        out += [torch.sin((2.0 ** i) * x), torch.cos((2.0 ** i) * x)]
    return torch.cat(out, -1)


class TinyNeRF(nn.Module):
    def __init__(self, n_freqs=6, width=64):
        super().__init__()
        self.n_freqs = n_freqs
        in_ch = 3 + 6 * n_freqs
        self.pts_linears = nn.ModuleList([nn.Linear(in_ch, width), nn.Linear(width, width), nn.Linear(width, width)])
        self.sigma_out = nn.Linear(width, 1)
        self.rgb_out = nn.Linear(width, 3)

    def forward(self, pts):
        h = posenc(pts, self.n_freqs)
        for lin in self.pts_linears:
            h = F.relu(lin(h))
        return torch.cat([self.rgb_out(h), self.sigma_out(h)], -1)


def raw2outputs(raw, z_vals, rays_d):
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    far = torch.tensor([1e10], dtype=z_vals.dtype).expand(dists[..., :1].shape)
    dists = torch.cat([dists, far], -1)
    dists = dists * rays_d.norm(dim=-1, keepdim=True)
    rgb = torch.sigmoid(raw[..., :3])
    sigma = F.relu(raw[..., 3])
    alpha = 1.0 - torch.exp(-sigma * dists)
    ones = torch.ones_like(alpha[..., :1])
    trans = torch.cumprod(torch.cat([ones, 1.0 - alpha + 1e-7], -1), -1)[..., :-1]
    weights = alpha * trans
    rgb_map = (weights[..., None] * rgb).sum(-2)
    depth_map = (weights * z_vals).sum(-1)
    return rgb_map, depth_map, weights


def get_rays(H, W, focal, c2w):
    i, j = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32), indexing="xy")
    dirs = np.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -np.ones_like(i)], -1)
    rays_d = dirs @ c2w[:3, :3].T
    rays_o = np.broadcast_to(c2w[:3, 3], rays_d.shape)
    return rays_o.reshape(-1, 3).astype(np.float32), rays_d.reshape(-1, 3).astype(np.float32)


def synthetic_scene(H=24, W=24, focal=30.0, n_views=4):
    views = []
    for k in range(n_views):
        th = 2 * np.pi * k / n_views
        c2w = np.eye(4)
        c2w[:3, 3] = [3.0 * np.sin(th), 0.0, 3.0 * np.cos(th)]
        fwd = -c2w[:3, 3] / np.linalg.norm(c2w[:3, 3])
        right = np.cross([0, 1, 0], -fwd)
        right /= np.linalg.norm(right)
        up = np.cross(-fwd, right)
        c2w[:3, :3] = np.stack([right, up, -fwd], 1)
        ro, rd = get_rays(H, W, focal, c2w)
        t = -(ro * rd).sum(-1) / (rd * rd).sum(-1)
        closest = np.linalg.norm(ro + t[:, None] * rd, axis=-1)
        rgb = np.where(closest[:, None] < 1.0, np.array([0.9, 0.3, 0.2]), np.array([0.0, 0.0, 0.0]))
        views.append((ro, rd, rgb.astype(np.float32)))
    return views


def main():
    views = synthetic_scene()
    rays_o = torch.from_numpy(np.concatenate([v[0] for v in views]))
    rays_d = torch.from_numpy(np.concatenate([v[1] for v in views]))
    target = torch.from_numpy(np.concatenate([v[2] for v in views]))
    model = TinyNeRF().to(DTYPE)
    opt = torch.optim.Adam(model.parameters(), lr=5e-4, eps=1e-4)
    near, far, n_samples = 2.0, 4.0, 32
    t_vals = torch.linspace(0.0, 1.0, n_samples)
    for it in range(20):
        sel = torch.randint(0, rays_o.shape[0], (128,))
        ro, rd, tgt = rays_o[sel].to(DTYPE), rays_d[sel].to(DTYPE), target[sel]
        z_vals = (near * (1 - t_vals) + far * t_vals).expand(128, n_samples).to(DTYPE)
        pts = ro[:, None, :] + rd[:, None, :] * z_vals[..., None]
        raw = model(pts)
        rgb_map, depth_map, _ = raw2outputs(raw, z_vals, rd)
        loss = F.mse_loss(rgb_map.float(), tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 5 == 0 or it == 19:
            print(f"iter {it:3d} loss {loss.item():.5f} depth {depth_map.float().mean().item():.3f}")


if __name__ == "__main__":
    main()
