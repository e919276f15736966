"""Object pose refinement (DeepIM-style, point-cloud input) trained in bf16.

A noisy initial rotation (from a coarse detector) is refined by a small PointNet that predicts
an axis-angle residual; the residual head is zero-initialised so training starts from the
initial estimate. Loss: geodesic distance on SO(3).
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DT = torch.bfloat16
N_PTS = 200


def random_quaternion(n):
    q = torch.randn(n, 4)
    return q / q.norm(dim=-1, keepdim=True)


def quat_to_matrix(q):
    w, x, y, z = q.unbind(-1)
    return torch.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    ], -1).reshape(q.shape[:-1] + (3, 3))


def skew(w):
    zero = torch.zeros_like(w[..., 0])
    return torch.stack([zero, -w[..., 2], w[..., 1], w[..., 2], zero, -w[..., 0], -w[..., 1], w[..., 0], zero], -1).reshape(w.shape[:-1] + (3, 3))


def so3_exp(w):
    # Rodrigues' formula, safe at w = 0
    theta2 = (w * w).sum(-1, keepdim=True)[..., None] + 1e-8
    theta = theta2.sqrt()
    K = skew(w)
    I = torch.eye(3, dtype=w.dtype).expand_as(K)
    return I + torch.sin(theta) / theta * K + (1 - torch.cos(theta)) / theta2 * (K @ K)


def geodesic_loss(R_pred, R_gt):
    rel = R_pred.transpose(-1, -2) @ R_gt
    cos = (rel.diagonal(dim1=-2, dim2=-1).sum(-1) - 1) / 2
    return torch.acos(cos)


class RefineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 256))
        self.head = nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 3))
        nn.init.zeros_(self.head[-1].weight)
        nn.init.zeros_(self.head[-1].bias)

    def forward(self, obs, model_pts, R_init):
        canon = obs @ R_init  # rotate observation back by the initial estimate (R_init^T applied on the left)
        feat = self.enc(torch.cat([canon, model_pts], -1)).max(dim=1).values
        return R_init @ so3_exp(self.head(feat))


def make_batch(model_pts, bs=16, noise_deg=4.0):
    q = random_quaternion(bs)
    R_gt = quat_to_matrix(q.to(DT))
    axis = F.normalize(torch.randn(bs, 3), dim=-1)
    angle = torch.rand(bs, 1) * math.radians(noise_deg)
    R_init = R_gt @ so3_exp((axis * angle).to(DT))
    pts = model_pts[None].expand(bs, -1, -1)
    obs = pts @ R_gt.transpose(-1, -2) + 0.005 * torch.randn(bs, N_PTS, 3, dtype=DT)
    return obs, pts, R_init, R_gt


def main():
    model_pts = (torch.rand(N_PTS, 3) * torch.tensor([0.2, 0.1, 0.05]) - torch.tensor([0.1, 0.05, 0.025])).to(DT)
    net = RefineNet().to(DT)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    for step in range(40):
        obs, pts, R_init, R_gt = make_batch(model_pts)
        R_pred = net(obs, pts, R_init)
        loss = geodesic_loss(R_pred, R_gt).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:3d} geodesic err {math.degrees(loss.item()):.3f} deg")
    print("done")


if __name__ == "__main__":
    main()
