"""NeRF with coarse + fine networks and hierarchical (importance) sampling via searchsorted.
MLPs run under CPU autocast (bf16); volume rendering and the PDF sampling stay in fp32.
Scene: two analytic spheres with Lambertian shading."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
H = W = 12
FOCAL = 15.0
N_COARSE, N_FINE = 16, 16
NEAR, FAR = 2.0, 6.0
SPHERES = [(torch.tensor([0.4, 0.0, 0.0]), 0.6, torch.tensor([0.9, 0.2, 0.2])),
           (torch.tensor([-0.5, 0.2, -0.3]), 0.5, torch.tensor([0.2, 0.3, 0.9]))]


def embed(x, L):
    freqs = 2.0 ** torch.arange(L, dtype=torch.float32) * math.pi
    xb = x[..., None] * freqs
    return torch.cat([x, torch.sin(xb).flatten(-2), torch.cos(xb).flatten(-2)], -1)


class NeRFMLP(nn.Module):
    def __init__(self, L_xyz=8, L_dir=3, width=64):
        super().__init__()
        self.L_xyz, self.L_dir = L_xyz, L_dir
        self.trunk = nn.Sequential(nn.Linear(3 + 6 * L_xyz, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.sigma = nn.Linear(width, 1)
        self.color = nn.Sequential(nn.Linear(width + 3 + 6 * L_dir, width // 2), nn.ReLU(), nn.Linear(width // 2, 3))

    def forward(self, x, d):
        h = self.trunk(embed(x, self.L_xyz))
        return self.sigma(h).squeeze(-1), self.color(torch.cat([h, embed(d, self.L_dir)], -1))


def camera(theta, r=4.0):
    eye = torch.tensor([r * math.sin(theta), 0.5, r * math.cos(theta)])
    fwd = F.normalize(-eye, dim=0)
    right = F.normalize(torch.linalg.cross(fwd, torch.tensor([0.0, 1.0, 0.0])), dim=0)
    up = torch.linalg.cross(right, fwd)
    i, j = torch.meshgrid(torch.arange(W, dtype=torch.float32) + 0.5, torch.arange(H, dtype=torch.float32) + 0.5, indexing="xy")
    d = ((i - W / 2) / FOCAL)[..., None] * right + (-(j - H / 2) / FOCAL)[..., None] * up + fwd
    return eye.expand(H * W, 3), d.reshape(-1, 3)


def gt_render(o, d):
    d = F.normalize(d, dim=-1)
    best_t = torch.full((o.shape[0],), 1e6)
    col = torch.ones(o.shape[0], 3)
    light = F.normalize(torch.tensor([1.0, 1.0, 1.0]), dim=0)
    for c, r, rgb in SPHERES:
        oc = o - c
        b = (oc * d).sum(-1)
        disc = b * b - ((oc * oc).sum(-1) - r * r)
        t = -b - torch.sqrt(disc.clamp_min(0.0))
        hit = (disc > 0) & (t > 0) & (t < best_t)
        n = F.normalize(o + t[:, None] * d - c, dim=-1)
        shade = rgb * (0.3 + 0.7 * (n @ light).clamp_min(0.0))[:, None]
        col = torch.where(hit[:, None], shade, col)
        best_t = torch.where(hit, t, best_t)
    return col


def composite(sigma, rgb, z, rays_d):
    delta = torch.cat([z[:, 1:] - z[:, :-1], torch.full_like(z[:, :1], 1e10)], -1) * rays_d.norm(dim=-1, keepdim=True)
    alpha = 1.0 - torch.exp(-F.relu(sigma) * delta)
    T = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    w = alpha * T
    color = (w[..., None] * torch.sigmoid(rgb)).sum(1) + (1.0 - w.sum(-1, keepdim=True))  # white background
    return color, w


def sample_pdf(bins, weights, n_samples):
    weights = weights + 1e-5
    pdf = weights / weights.sum(-1, keepdim=True)
    cdf = torch.cat([torch.zeros_like(pdf[:, :1]), torch.cumsum(pdf, -1)], -1)
    u = torch.rand(cdf.shape[0], n_samples).contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = (inds - 1).clamp_min(0)
    above = inds.clamp_max(cdf.shape[-1] - 1)
    g = torch.stack([below, above], -1)
    cdf_g = torch.gather(cdf[:, None].expand(-1, n_samples, -1), 2, g)
    bins_g = torch.gather(bins[:, None].expand(-1, n_samples, -1), 2, g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])


def render(coarse, fine, o, d):
    viewdir = F.normalize(d, dim=-1)
    z = torch.linspace(NEAR, FAR, N_COARSE).expand(o.shape[0], N_COARSE)
    z = z + (torch.rand_like(z) - 0.5) * (FAR - NEAR) / N_COARSE
    pts = o[:, None] + d[:, None] * z[..., None]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        sig_c, rgb_c = coarse(pts, viewdir[:, None].expand_as(pts))
    col_c, w_c = composite(sig_c.float(), rgb_c.float(), z, d)
    mids = 0.5 * (z[:, 1:] + z[:, :-1])
    z_f = sample_pdf(mids, w_c[:, 1:-1].detach(), N_FINE)
    z_all, _ = torch.sort(torch.cat([z, z_f.detach()], -1), -1)
    pts = o[:, None] + d[:, None] * z_all[..., None]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        sig_f, rgb_f = fine(pts, viewdir[:, None].expand_as(pts))
    col_f, _ = composite(sig_f.float(), rgb_f.float(), z_all, d)
    return col_c, col_f


def main():
    coarse, fine = NeRFMLP(), NeRFMLP()
    opt = torch.optim.Adam(list(coarse.parameters()) + list(fine.parameters()), lr=1e-3)
    views = [camera(t) for t in torch.linspace(0, 2 * math.pi, 9)[:-1].tolist()]
    targets = [gt_render(o, d) for o, d in views]
    for it in range(40):
        k = it % len(views)
        col_c, col_f = render(coarse, fine, *views[k])
        loss = F.mse_loss(col_c, targets[k]) + F.mse_loss(col_f, targets[k])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 10 == 0:
            print(f"it {it:3d} loss {loss.item():.5f}")
    with torch.no_grad():
        _, col_f = render(coarse, fine, *views[0])
        print(f"view 0 psnr {(-10 * torch.log10(F.mse_loss(col_f, targets[0]))).item():.2f} dB")


if __name__ == "__main__":
    main()
