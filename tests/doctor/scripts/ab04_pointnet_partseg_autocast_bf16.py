"""PointNet part segmentation (per-point labels) on synthetic 'lamps' (base / pole / shade),
hand-written loop under CPU autocast (bfloat16). Points come from NumPy (float64)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
N = 256
N_PARTS = 3


def lamp():
    n_base, n_pole = N // 4, N // 4
    n_shade = N - n_base - n_pole
    r = rng.uniform(0.3, 0.5)
    t = rng.uniform(0, 2 * np.pi, n_base)
    base = np.stack([r * np.sqrt(rng.uniform(0, 1, n_base)) * np.cos(t), r * np.sqrt(rng.uniform(0, 1, n_base)) * np.sin(t), rng.uniform(0, 0.05, n_base)], 1)
    h = rng.uniform(0.8, 1.2)
    pole = np.stack([0.03 * rng.normal(size=n_pole), 0.03 * rng.normal(size=n_pole), rng.uniform(0.05, h, n_pole)], 1)
    z = rng.uniform(0, 1, n_shade)
    t = rng.uniform(0, 2 * np.pi, n_shade)
    rad = 0.4 - 0.25 * z
    shade = np.stack([rad * np.cos(t), rad * np.sin(t), h + 0.3 * z], 1)
    pts = np.concatenate([base, pole, shade])
    lab = np.concatenate([np.zeros(n_base), np.ones(n_pole), 2 * np.ones(n_shade)]).astype(np.int64)
    # random rotation about z and jitter
    a = rng.uniform(0, 2 * np.pi)
    R = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    pts = pts @ R.T + 0.005 * rng.normal(size=pts.shape)
    pts -= pts.mean(0)
    pts /= np.linalg.norm(pts, axis=1).max()
    return pts, lab


class PointNetSeg(nn.Module):
    def __init__(self, k=N_PARTS):
        super().__init__()
        self.local = nn.Sequential(nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(), nn.Conv1d(64, 64, 1), nn.BatchNorm1d(64), nn.ReLU())
        self.glob = nn.Sequential(nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(), nn.Conv1d(128, 256, 1))
        self.seg = nn.Sequential(nn.Conv1d(64 + 256, 128, 1), nn.BatchNorm1d(128), nn.ReLU(), nn.Conv1d(128, k, 1))

    def forward(self, x):
        loc = self.local(x)
        g = self.glob(loc).max(2, keepdim=True).values.expand(-1, -1, x.shape[2])
        return self.seg(torch.cat([loc, g], 1))


def main():
    data = [lamp() for _ in range(96)]
    X = np.stack([d[0] for d in data])  # float64
    Y = np.stack([d[1] for d in data])
    model = PointNetSeg()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(4):
        perm = rng.permutation(len(X))
        model.train()
        for i in range(0, len(X), 16):
            b = perm[i:i + 16]
            pts = torch.from_numpy(X[b]).float().transpose(1, 2)
            lab = torch.from_numpy(Y[b])
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(pts)
            loss = F.cross_entropy(logits.float(), lab)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            pts = torch.from_numpy(X[:32]).float().transpose(1, 2)
            pred = model(pts).float().argmax(1)
        acc = (pred == torch.from_numpy(Y[:32])).float().mean().item()
        print(f"epoch {epoch} loss {loss.item():.4f} point acc {acc:.3f}")


if __name__ == "__main__":
    main()
