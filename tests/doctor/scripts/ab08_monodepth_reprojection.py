"""Self-supervised monocular depth (monodepth2-style) on a synthetic stereo-like pair.

Calibration (intrinsics, relative pose) comes from a NumPy calibration dict, as it would from a
KITTI calib file. Depth -> back-project -> transform -> project -> grid_sample -> photometric loss.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
B, H, W = 4, 24, 32

CALIB = {
    "K": np.array([[0.58 * W, 0, 0.5 * W, 0], [0, 1.92 * H, 0.5 * H, 0], [0, 0, 1, 0], [0, 0, 0, 1]]),
    "T_01": np.array([[1, 0, 0, -0.1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=np.float64),
}


class DepthNet(nn.Module):
    def __init__(self, min_depth=0.1, max_depth=100.0):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ELU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ELU())
        self.dec = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(32, 16, 3, 1, 1), nn.ELU(),
                                 nn.Upsample(scale_factor=2), nn.Conv2d(16, 1, 3, 1, 1), nn.Sigmoid())
        self.min_disp, self.max_disp = 1 / max_depth, 1 / min_depth

    def forward(self, img):
        disp = self.dec(self.enc(img))
        scaled = self.min_disp + (self.max_disp - self.min_disp) * disp
        return 1 / scaled


class BackprojectDepth(nn.Module):
    def __init__(self, batch_size, height, width):
        super().__init__()
        xs, ys = np.meshgrid(range(width), range(height), indexing="xy")
        pix = np.stack([xs.ravel(), ys.ravel(), np.ones(height * width)], 0).astype(np.float32)
        self.register_buffer("pix_coords", torch.from_numpy(pix)[None].repeat(batch_size, 1, 1))
        self.register_buffer("ones", torch.ones(batch_size, 1, height * width))

    def forward(self, depth, inv_K):
        cam_points = torch.matmul(inv_K[:, :3, :3], self.pix_coords)
        cam_points = depth.view(depth.shape[0], 1, -1) * cam_points
        return torch.cat([cam_points, self.ones], 1)


class Project3D(nn.Module):
    def __init__(self, height, width, eps=1e-7):
        super().__init__()
        self.h, self.w, self.eps = height, width, eps

    def forward(self, points, K, T):
        P = torch.matmul(K, T)[:, :3, :]
        cam = torch.matmul(P, points)
        pix = cam[:, :2] / (cam[:, 2:3] + self.eps)
        pix = pix.view(-1, 2, self.h, self.w).permute(0, 2, 3, 1)
        pix[..., 0] /= self.w - 1
        pix[..., 1] /= self.h - 1
        return (pix - 0.5) * 2


def synth_pair():
    # textured fronto-parallel plane at depth 5-10 m; right view shifted by the baseline
    depth = rng.uniform(5, 10)
    tex = rng.uniform(0, 1, size=(3, H, W + 8)).astype(np.float32)
    shift = int(round(0.1 * 0.58 * W / depth * 8)) + 1
    return tex[:, :, 4:4 + W], tex[:, :, 4 + shift:4 + shift + W]


def main():
    net = DepthNet()
    backproject = BackprojectDepth(B, H, W)
    project = Project3D(H, W)
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    for step in range(20):
        pairs = [synth_pair() for _ in range(B)]
        tgt = torch.from_numpy(np.stack([p[0] for p in pairs]))
        src = torch.from_numpy(np.stack([p[1] for p in pairs]))
        K = torch.from_numpy(CALIB["K"])[None].repeat(B, 1, 1)
        inv_K = torch.linalg.inv(K)
        T = torch.from_numpy(CALIB["T_01"])[None].repeat(B, 1, 1)
        depth = net(tgt)
        pts = backproject(depth, inv_K)
        grid = project(pts, K, T)
        warped = F.grid_sample(src, grid, padding_mode="border", align_corners=False)
        loss = (warped - tgt).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step} photometric {loss.item():.4f} mean depth {depth.mean().item():.2f}")


if __name__ == "__main__":
    main()
