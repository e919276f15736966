"""TinyNeRF (as in the original tiny_nerf notebook) ported to PyTorch and run in half precision.

Scene: an axis-aligned coloured box; ground truth rendered analytically (slab test).
Renders RGB + depth, supervised with RGB only.
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
H = W = 12
FOCAL = 14.0
N_SAMPLES = 24
DTYPE = torch.float16


def posenc(x, L=6):
    rets = [x]
    for i in range(L):
        for fn in (torch.sin, torch.cos):
            rets.append(fn(2.0 ** i * x))
    return torch.cat(rets, -1)


class TinyNeRF(nn.Module):
    def __init__(self, D=4, Wd=64, L=6):
        super().__init__()
        in_ch = 3 + 3 * 2 * L
        layers = [nn.Linear(in_ch, Wd)] + [nn.Linear(Wd + (in_ch if i == 3 else 0), Wd) for i in range(1, D)]
        self.layers = nn.ModuleList(layers)
        self.out = nn.Linear(Wd, 4)
        self.L = L

    def forward(self, pts):
        x_in = posenc(pts, self.L)
        h = x_in
        for i, lin in enumerate(self.layers):
            if i == 3:
                h = torch.cat([h, x_in], -1)
            h = F.relu(lin(h))
        return self.out(h)


def get_rays(c2w):
    i, j = torch.meshgrid(torch.arange(W, dtype=torch.float32), torch.arange(H, dtype=torch.float32), indexing="xy")
    dirs = torch.stack([(i - W * 0.5) / FOCAL, -(j - H * 0.5) / FOCAL, -torch.ones_like(i)], -1)
    rays_d = (dirs[..., None, :] * c2w[:3, :3]).sum(-1)
    return c2w[:3, -1].expand(rays_d.shape), rays_d


def look_at(theta, phi=0.4, r=4.0):
    eye = torch.tensor([r * math.cos(phi) * math.sin(theta), r * math.sin(phi), r * math.cos(phi) * math.cos(theta)])
    fwd = F.normalize(-eye, dim=0)
    right = F.normalize(torch.linalg.cross(fwd, torch.tensor([0.0, 1.0, 0.0])), dim=0)
    up = torch.linalg.cross(right, fwd)
    c2w = torch.eye(4)
    c2w[:3, 0], c2w[:3, 1], c2w[:3, 2], c2w[:3, 3] = right, up, -fwd, eye
    return c2w


def render_gt(rays_o, rays_d):
    lo, hi = torch.tensor([-0.8, -0.5, -0.6]), torch.tensor([0.8, 0.5, 0.6])
    safe_d = torch.where(rays_d.abs() < 1e-6, torch.full_like(rays_d, 1e-6), rays_d)
    inv = 1.0 / safe_d
    t0, t1 = (lo - rays_o) * inv, (hi - rays_o) * inv
    tmin = torch.minimum(t0, t1).amax(-1)
    tmax = torch.maximum(t0, t1).amin(-1)
    hit = tmax > tmin.clamp_min(0)
    p = rays_o + rays_d * tmin[..., None]
    col = (p - lo) / (hi - lo)
    return torch.where(hit[..., None], col.clamp(0, 1), torch.zeros_like(col))


def render_rays(model, rays_o, rays_d, near=2.0, far=6.0):
    z_vals = torch.linspace(near, far, N_SAMPLES, dtype=rays_o.dtype)
    z_vals = z_vals + torch.rand(list(rays_o.shape[:-1]) + [N_SAMPLES], dtype=rays_o.dtype) * (far - near) / N_SAMPLES
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    raw = model(pts.reshape(-1, 3)).reshape(list(pts.shape[:-1]) + [4])
    sigma_a = F.relu(raw[..., 3])
    rgb = torch.sigmoid(raw[..., :3])
    dists = torch.cat([z_vals[..., 1:] - z_vals[..., :-1],
                       torch.tensor([1e10], dtype=z_vals.dtype).expand(z_vals[..., :1].shape)], -1)
    alpha = 1.0 - torch.exp(-sigma_a * dists)
    weights = alpha * torch.cumprod(torch.cat([torch.ones_like(alpha[..., :1]), 1.0 - alpha + 1e-10], -1), -1)[..., :-1]
    rgb_map = (weights[..., None] * rgb).sum(-2)
    depth_map = (weights * z_vals).sum(-1)
    return rgb_map, depth_map


def main():
    model = TinyNeRF().to(DTYPE)
    opt = torch.optim.Adam(model.parameters(), lr=5e-4, eps=1e-4)
    poses = [look_at(th) for th in torch.linspace(0, 2 * math.pi, 10)[:-1].tolist()]
    images = []
    for c2w in poses:
        ro, rd = get_rays(c2w)
        images.append(render_gt(ro, rd))
    for it in range(40):
        k = it % len(poses)
        rays_o, rays_d = get_rays(poses[k])
        rgb, depth = render_rays(model, rays_o.to(DTYPE), rays_d.to(DTYPE))
        loss = F.mse_loss(rgb.float(), images[k])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 10 == 0:
            print(f"it {it:3d} loss {loss.item():.5f} mean depth {depth.float().mean().item():.3f}")
    print("done")


if __name__ == "__main__":
    main()
