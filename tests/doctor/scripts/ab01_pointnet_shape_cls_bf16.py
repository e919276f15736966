"""PointNet classifier on synthetic shapes (sphere / cube / cylinder), trained in bf16 to save memory.

Point clouds are generated with NumPy (float64) like most loaders that read .off/.ply files.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_POINTS = 256
NUM_CLASSES = 3


def sample_shape(label, n=NUM_POINTS):
    if label == 0:  # sphere
        p = rng.normal(size=(n, 3))
        p /= np.linalg.norm(p, axis=1, keepdims=True)
    elif label == 1:  # cube surface
        p = rng.uniform(-1, 1, size=(n, 3))
        axis = rng.integers(0, 3, size=n)
        p[np.arange(n), axis] = np.sign(p[np.arange(n), axis])
    else:  # cylinder
        t = rng.uniform(0, 2 * np.pi, size=n)
        p = np.stack([np.cos(t), np.sin(t), rng.uniform(-1, 1, size=n)], axis=1)
    p = p - p.mean(0)
    p = p / np.abs(p).max()
    return p  # float64


def make_dataset(n_per_class=64):
    xs, ys = [], []
    for c in range(NUM_CLASSES):
        for _ in range(n_per_class):
            xs.append(sample_shape(c))
            ys.append(c)
    return np.stack(xs), np.array(ys)


class PointNetEncoder(nn.Module):
    def __init__(self, dims=(64, 128, 256)):
        super().__init__()
        self.conv1 = nn.Conv1d(3, dims[0], 1)
        self.conv2 = nn.Conv1d(dims[0], dims[1], 1)
        self.conv3 = nn.Conv1d(dims[1], dims[2], 1)
        self.bn1 = nn.BatchNorm1d(dims[0])
        self.bn2 = nn.BatchNorm1d(dims[1])
        self.bn3 = nn.BatchNorm1d(dims[2])

    def forward(self, x):  # x: (B, 3, N)
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.bn3(self.conv3(x))
        return torch.max(x, dim=2).values


class PointNetCls(nn.Module):
    def __init__(self, k=NUM_CLASSES):
        super().__init__()
        self.feat = PointNetEncoder()
        self.head = nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, k))

    def forward(self, x):
        return self.head(self.feat(x))


def main():
    X, Y = make_dataset()
    model = PointNetCls().to(torch.bfloat16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    bs = 32
    for epoch in range(3):
        perm = rng.permutation(len(X))
        total = 0.0
        for i in range(0, len(X), bs):
            idx = perm[i:i + bs]
            pts = torch.from_numpy(X[idx]).transpose(1, 2).contiguous()  # (B, 3, N)
            labels = torch.from_numpy(Y[idx]).long()
            logits = model(pts)
            loss = F.cross_entropy(logits.float(), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch} loss {total / len(X):.4f}")


if __name__ == "__main__":
    main()
