import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
GRID = 16
K = np.array([[20.0, 0.0, 16.0], [0.0, 20.0, 12.0], [0.0, 0.0, 1.0]])


def depth_to_points(depth_png, K, cam_height=1.2):
    z = depth_png.astype(np.float32) / 1000.0
    v, u = np.nonzero(depth_png)
    z = z[v, u]
    x = (u - K[0, 2]) * z / K[0, 0]
    y = cam_height - (v - K[1, 2]) * z / K[1, 1]
    return np.stack([x, z, y], -1).astype(np.float32)


def synth_frame(H=24, W=32):
    vv, uu = np.mgrid[0:H, 0:W].astype(np.float64)
    ground = np.where(vv > K[1, 2] + 1, 1.2 * K[1, 1] / np.maximum(vv - K[1, 2], 1e-3), 0.0)
    depth = np.clip(ground, 0, 6.0)
    boxes = []
    for _ in range(rng.integers(1, 3)):
        u0, w = rng.integers(2, W - 10), rng.integers(4, 8)
        d = rng.uniform(2.5, 5.0)
        v_top = int(K[1, 2] - 8 / d)
        depth[v_top:, u0:u0 + w] = np.where(depth[v_top:, u0:u0 + w] > d, d, depth[v_top:, u0:u0 + w])
        boxes.append(((u0 + w / 2 - K[0, 2]) * d / K[0, 0], d))
    return (depth * 1000).astype(np.uint16), boxes


class PillarNet(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.point_net = nn.Sequential(nn.Linear(6, ch), nn.ReLU(), nn.Linear(ch, ch))
        self.bev = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
                                 nn.Conv2d(ch, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
                                 nn.Conv2d(ch, 1, 1))
        self.ch = ch

    def forward(self, pts, batch_idx):
        ix = ((pts[:, 0] + 4.0) / 8.0 * GRID).long().clamp(0, GRID - 1)
        iz = (pts[:, 1] / 6.0 * GRID).long().clamp(0, GRID - 1)
        cell = batch_idx * GRID * GRID + iz * GRID + ix
        centers = torch.stack([(ix.float() + 0.5) / GRID * 8.0 - 4.0, (iz.float() + 0.5) / GRID * 6.0], -1)
        feats = self.point_net(torch.cat([pts, pts[:, :2] - centers, pts[:, 2:3]], -1))
        B = int(batch_idx.max()) + 1
        canvas = torch.full((B * GRID * GRID, self.ch), -torch.inf, dtype=torch.float32)
        canvas = canvas.scatter_reduce(0, cell[:, None].expand(-1, self.ch), feats.float(), reduce="amax")
        canvas = torch.where(torch.isinf(canvas), torch.zeros_like(canvas), canvas)
        canvas = canvas.view(B, GRID, GRID, self.ch).permute(0, 3, 1, 2)
        return self.bev(canvas).squeeze(1)


def collate(frames):
    pts, bidx, targets = [], [], []
    for b, (depth_png, boxes) in enumerate(frames):
        p = torch.from_numpy(depth_to_points(depth_png, K))
        pts.append(p)
        bidx.append(torch.full((len(p),), b, dtype=torch.long))
        t = torch.zeros(GRID, GRID)
        for x, z in boxes:
            t[min(int(z / 6.0 * GRID), GRID - 1), min(max(int((x + 4.0) / 8.0 * GRID), 0), GRID - 1)] = 1.0
        targets.append(t)
    return torch.cat(pts), torch.cat(bidx), torch.stack(targets)


def main():
    model = PillarNet()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(30):
        pts, bidx, target = collate([synth_frame() for _ in range(4)])
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(pts, bidx)
        loss = F.binary_cross_entropy_with_logits(logits.float(), target, pos_weight=torch.tensor(20.0))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0 or step == 29:
            print(f"step {step:2d} bev loss {loss.item():.4f} max logit {logits.float().max().item():.2f}")


if __name__ == "__main__":
    main()
