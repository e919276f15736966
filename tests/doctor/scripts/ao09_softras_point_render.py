import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
IMG = 20


def fibonacci_sphere(n):
    i = torch.arange(n, dtype=torch.float32) + 0.5
    phi = torch.acos(1 - 2 * i / n)
    theta = math.pi * (1 + 5 ** 0.5) * i
    return torch.stack([torch.cos(theta) * torch.sin(phi), torch.sin(theta) * torch.sin(phi), torch.cos(phi)], -1)


class DeformNet(nn.Module):
    def __init__(self, n_pts=128, latent=16):
        super().__init__()
        self.register_buffer("template", fibonacci_sphere(n_pts) * 0.6)
        self.latent = nn.Parameter(torch.zeros(latent))
        self.mlp = nn.Sequential(nn.Linear(3 + latent, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 6))

    def forward(self):
        z = self.latent.expand(self.template.shape[0], -1)
        out = self.mlp(torch.cat([self.template, z], -1))
        return self.template + 0.3 * torch.tanh(out[:, :3]), torch.sigmoid(out[:, 3:])


class SoftPointRasterizer(nn.Module):
    def __init__(self, focal=18.0, sigma=1.5, gamma=0.05, near=1.5, far=4.5):
        super().__init__()
        self.focal, self.sigma, self.gamma, self.near, self.far = focal, sigma, gamma, near, far
        ys, xs = torch.meshgrid(torch.arange(IMG), torch.arange(IMG), indexing="ij")
        self.register_buffer("pix", torch.stack([xs, ys], -1).reshape(-1, 2).float() + 0.5)

    def forward(self, pts, colors, cam_t):
        cam = pts + cam_t
        z = cam[:, 2]
        uv = self.focal * cam[:, :2] / z[:, None] + IMG / 2
        d2 = ((self.pix[:, None, :] - uv[None]) ** 2).sum(-1)
        cover_logit = -d2 / (2 * self.sigma ** 2)
        cover = torch.exp(cover_logit)
        z_norm = (self.far - z) / (self.far - self.near)
        w = torch.exp(cover_logit + z_norm[None] / self.gamma)
        w_bg = torch.exp(torch.tensor(1e-3 / self.gamma, dtype=w.dtype))
        denom = w.sum(-1, keepdim=True) + w_bg
        rgb = (w @ colors) / denom
        sil = 1 - torch.prod(1 - cover.clamp(max=0.999), dim=-1)
        return rgb.view(IMG, IMG, 3), sil.view(IMG, IMG)


def target_views():
    ys, xs = torch.meshgrid(torch.arange(IMG), torch.arange(IMG), indexing="ij")
    r2 = (xs - IMG / 2 + 0.5) ** 2 / 30 + (ys - IMG / 2 + 0.5) ** 2 / 14
    sil = (r2 < 1).float()
    rgb = sil[..., None] * torch.tensor([0.8, 0.4, 0.1])
    return rgb, sil


def main():
    net = DeformNet().half()
    raster = SoftPointRasterizer().half()
    cam_t = torch.tensor([0.0, 0.0, 3.0]).half()
    tgt_rgb, tgt_sil = target_views()
    opt = torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9)
    for it in range(40):
        pts, colors = net()
        rgb, sil = raster(pts, colors, cam_t)
        loss_rgb = F.mse_loss(rgb.float(), tgt_rgb)
        loss_sil = F.mse_loss(sil.float(), tgt_sil)
        loss = loss_rgb + loss_sil
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 8 == 0 or it == 39:
            print(f"it {it:2d} rgb {loss_rgb.item():.4f} sil {loss_sil.item():.4f} total {loss.item():.4f}")


if __name__ == "__main__":
    main()
