"""Fit a 32x32 image with 2D Gaussian splats (GaussianImage-style), rendered in half precision.

Each Gaussian: mean, log-scale (2), rotation angle, colour, opacity logit.
Covariance = R S S^T R^T; the splat weight is exp(-0.5 d^T Sigma^-1 d).
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
H = W = 32
N_GAUSS = 64


def target_image():
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
    r = torch.sqrt(xs ** 2 + ys ** 2)
    img = torch.stack([
        (r < 0.6).float(),
        0.5 + 0.5 * torch.sin(6 * xs),
        ((xs > 0) ^ (ys > 0)).float() * 0.8,
    ], -1)
    return img


class GaussianImage(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.means = nn.Parameter(torch.rand(n, 2) * 2 - 1)
        self.log_scales = nn.Parameter(torch.full((n, 2), math.log(0.15)) + 0.1 * torch.randn(n, 2))
        self.theta = nn.Parameter(torch.rand(n) * math.pi)
        self.colors = nn.Parameter(torch.rand(n, 3))
        self.opacity = nn.Parameter(torch.zeros(n))
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
        self.register_buffer("pix", torch.stack([xs, ys], -1).reshape(-1, 2))

    def covariances(self):
        c, s = torch.cos(self.theta), torch.sin(self.theta)
        R = torch.stack([c, -s, s, c], -1).view(-1, 2, 2)
        S = torch.diag_embed(torch.exp(self.log_scales))
        M = R @ S
        return M @ M.transpose(-1, -2)

    def forward(self):
        cov = self.covariances()
        conic = torch.linalg.inv(cov)  # (N, 2, 2)
        d = self.pix[:, None, :] - self.means[None]  # (P, N, 2)
        maha = torch.einsum("pni,nij,pnj->pn", d, conic, d)
        alpha = torch.sigmoid(self.opacity)[None] * torch.exp(-0.5 * maha)
        img = alpha @ torch.sigmoid(self.colors)  # additive splatting (GaussianImage accumulates)
        return img.view(H, W, 3)


def main():
    target = target_image().half()
    model = GaussianImage(N_GAUSS).half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2, eps=1e-4)
    for it in range(100):
        img = model()
        loss = F.mse_loss(img.float(), target.float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 20 == 0:
            print(f"iter {it:3d} mse {loss.item():.5f} psnr {-10 * math.log10(loss.item()):.2f}")
    print("final mse", loss.item())


if __name__ == "__main__":
    main()
