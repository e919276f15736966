import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
H = W = 24


def quat_to_rot(q):
    q = F.normalize(q, dim=-1)
    w, x, y, z = q.unbind(-1)
    return torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1).view(-1, 3, 3)


class GaussianModel(nn.Module):
    def __init__(self, n=96):
        super().__init__()
        self.means = nn.Parameter(torch.randn(n, 3) * 0.5)
        self.log_scales = nn.Parameter(torch.full((n, 3), -2.3))
        self.quats = nn.Parameter(torch.randn(n, 4))
        self.opacity_logit = nn.Parameter(torch.zeros(n))
        self.colors = nn.Parameter(torch.rand(n, 3))
        self.xyz_gradient_accum = torch.zeros(n)
        self.denom = torch.zeros(n)

    def _track_screen_grads(self, visible):
        def hook(grad):
            norms = grad.norm(dim=-1)
            self.xyz_gradient_accum.index_put_((visible,), norms[visible], accumulate=True)
            self.denom[visible] += 1
        return hook

    def forward(self, K, w2c):
        R, t = w2c[:3, :3], w2c[:3, 3]
        cam = self.means @ R.T + t
        z = cam[:, 2].clamp(min=0.1)
        means2d = torch.stack([K[0, 0] * cam[:, 0] / z + K[0, 2], K[1, 1] * cam[:, 1] / z + K[1, 2]], -1)
        visible = torch.nonzero((z > 0.2) & (means2d[:, 0].abs() < 2 * W)).squeeze(-1)
        if means2d.requires_grad:
            means2d.register_hook(self._track_screen_grads(visible))
        Rq = quat_to_rot(self.quats)
        S = torch.diag_embed(self.log_scales.exp())
        cov3d = Rq @ S @ S.transpose(1, 2) @ Rq.transpose(1, 2)
        J = torch.zeros(cam.shape[0], 2, 3, dtype=cam.dtype)
        J[:, 0, 0] = K[0, 0] / z
        J[:, 1, 1] = K[1, 1] / z
        J[:, 0, 2] = -K[0, 0] * cam[:, 0] / z ** 2
        J[:, 1, 2] = -K[1, 1] * cam[:, 1] / z ** 2
        cov2d = J @ R @ cov3d @ R.T @ J.transpose(1, 2) + 0.3 * torch.eye(2, dtype=cam.dtype)
        a, b, c = cov2d[:, 0, 0], cov2d[:, 0, 1], cov2d[:, 1, 1]
        det = a * c - b * b
        conic = torch.stack([c / det, -b / det, a / det], -1)
        order = torch.argsort(z)
        ys, xs = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
        pix = torch.stack([xs, ys], -1).reshape(-1, 2).to(cam.dtype) + 0.5
        d = pix[:, None, :] - means2d[order][None]
        cn = conic[order]
        power = -0.5 * (cn[:, 0] * d[..., 0] ** 2 + 2 * cn[:, 1] * d[..., 0] * d[..., 1] + cn[:, 2] * d[..., 1] ** 2)
        alpha = (torch.sigmoid(self.opacity_logit[order]) * power.clamp(max=0).exp()).clamp(max=0.99)
        trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1 - alpha[:, :-1]], 1), 1)
        img = ((alpha * trans)[..., None] * self.colors[order][None]).sum(1)
        return img.view(H, W, 3)


def make_target():
    ys, xs = np.mgrid[0:H, 0:W]
    img = np.zeros((H, W, 3), np.float32)
    img[..., 0] = ((xs - 10) ** 2 + (ys - 12) ** 2 < 30)
    img[..., 2] = ((xs - 16) ** 2 + (ys - 8) ** 2 < 12)
    return torch.from_numpy(img)


def main():
    K = np.array([[30.0, 0, W / 2], [0, 30.0, H / 2], [0, 0, 1]])
    w2c = np.eye(4)
    w2c[2, 3] = 3.0
    model = GaussianModel().half()
    K_t = torch.from_numpy(K).half()
    w2c_t = torch.from_numpy(w2c).half()
    target = make_target()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2, eps=1e-4)
    for it in range(40):
        img = model(K_t, w2c_t)
        loss = F.l1_loss(img.float(), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 10 == 0:
            grads = model.xyz_gradient_accum / model.denom.clamp(min=1)
            print(f"iter {it} l1 {loss.item():.4f} densify candidates {(grads > 2e-4).sum().item()}")


if __name__ == "__main__":
    main()
