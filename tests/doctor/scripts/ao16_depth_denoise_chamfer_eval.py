import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
H = W = 24
K = np.array([[28.0, 0.0, W / 2], [0.0, 28.0, H / 2], [0.0, 0.0, 1.0]])


def render_depth_png():
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    depth = 1.8 + 0.4 * yy / H + 0.1 * rng.random()
    cx, cy, r = rng.uniform(8, 16), rng.uniform(8, 16), rng.uniform(3, 6)
    bump = np.clip(r ** 2 - (xx - cx) ** 2 - (yy - cy) ** 2, 0, None) ** 0.5 / 30.0
    return ((depth - bump) * 1000.0).astype(np.uint16)


def unproject(depth_png, K):
    z = depth_png.astype(np.float64) / 1000.0
    v, u = np.nonzero(depth_png > 0)
    z = z[v, u]
    x = (u + 0.5 - K[0, 2]) * z / K[0, 0]
    y = (v + 0.5 - K[1, 2]) * z / K[1, 1]
    return np.stack([x, y, z], -1)


class PointDenoiser(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.point_mlp = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.offset_head = nn.Sequential(nn.Linear(2 * width, width), nn.ReLU(), nn.Linear(width, 3))

    def forward(self, pts):
        center = pts.mean(1, keepdim=True)
        f = self.point_mlp(pts - center)
        g = f.max(1, keepdim=True).values.expand_as(f)
        return pts + 0.01 * self.offset_head(torch.cat([f, g], -1))


def chamfer(a, b):
    aa = (a * a).sum(-1, keepdim=True)
    bb = (b * b).sum(-1).unsqueeze(1)
    d = aa + bb - 2 * a @ b.transpose(1, 2)
    return d.min(2).values.mean(1) + d.min(1).values.mean(1)


def make_batch(B=4):
    clean, noisy = [], []
    for _ in range(B):
        pts = unproject(render_depth_png(), K)
        clean.append(pts)
        noisy.append(pts + rng.normal(0, 0.01, pts.shape))
    return torch.tensor(np.stack(noisy), dtype=torch.float32), torch.tensor(np.stack(clean), dtype=torch.float32)


def main():
    model = PointDenoiser()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(40):
        noisy, clean = make_batch()
        loss = chamfer(model(noisy), clean).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"train step {step} chamfer(m^2) {loss.item():.6f}")

    model = model.half().eval()
    scores = []
    with torch.no_grad():
        for _ in range(3):
            depth_png = render_depth_png()
            gt_mm = unproject(depth_png, K) * 1000.0
            noisy = unproject(depth_png, K) + rng.normal(0, 0.01, gt_mm.shape)
            pred = model(torch.from_numpy(noisy)[None].half())
            pred_mm = pred * 1000.0
            gt = torch.from_numpy(gt_mm)[None].to(pred_mm.dtype)
            scores.append(chamfer(pred_mm, gt).item())
    print("eval chamfer (mm^2) per view:", [f"{s:.2f}" for s in scores])
    print(f"mean eval chamfer (mm^2): {np.mean(scores):.2f}")


if __name__ == "__main__":
    main()
