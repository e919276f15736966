import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


def farthest_point_sample(xyz, npoint):
    B, N, _ = xyz.shape
    centroids = torch.zeros(B, npoint, dtype=torch.long)
    distance = torch.full((B, N), 1e4, dtype=xyz.dtype)
    farthest = torch.randint(0, N, (B,), dtype=torch.long)
    batch = torch.arange(B)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch, farthest].unsqueeze(1)
        dist = ((xyz - centroid) ** 2).sum(-1)
        distance = torch.minimum(distance, dist)
        farthest = distance.argmax(-1)
    return centroids


def index_points(points, idx):
    B = points.shape[0]
    batch = torch.arange(B).view(B, *([1] * (idx.dim() - 1))).expand_as(idx)
    return points[batch, idx]


def knn_group(xyz, new_xyz, k):
    d = torch.cdist(new_xyz, xyz, compute_mode="donot_use_mm_for_euclid_dist")
    return d.topk(k, dim=-1, largest=False).indices


class SetAbstraction(nn.Module):
    def __init__(self, npoint, k, in_ch, mlp):
        super().__init__()
        self.npoint, self.k = npoint, k
        layers, c = [], in_ch + 3
        for out in mlp:
            layers += [nn.Conv2d(c, out, 1), nn.BatchNorm2d(out), nn.ReLU()]
            c = out
        self.mlp = nn.Sequential(*layers)

    def forward(self, xyz, feats):
        fps_idx = farthest_point_sample(xyz, self.npoint)
        new_xyz = index_points(xyz, fps_idx)
        idx = knn_group(xyz, new_xyz, self.k)
        grouped_xyz = index_points(xyz, idx) - new_xyz.unsqueeze(2)
        if feats is not None:
            grouped = torch.cat([grouped_xyz, index_points(feats, idx)], -1)
        else:
            grouped = grouped_xyz
        out = self.mlp(grouped.permute(0, 3, 2, 1))
        return new_xyz, out.max(2).values.transpose(1, 2)


class PointNet2Cls(nn.Module):
    def __init__(self, num_classes=8):
        super().__init__()
        self.sa1 = SetAbstraction(128, 16, 0, [32, 32, 64])
        self.sa2 = SetAbstraction(32, 16, 64, [64, 64, 128])
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, num_classes))

    def forward(self, xyz):
        xyz1, f1 = self.sa1(xyz, None)
        _, f2 = self.sa2(xyz1, f1)
        return self.head(f2.max(1).values)


class ShapeDataset(Dataset):
    def __init__(self, n=64, npts=512, num_classes=8):
        self.items = []
        for i in range(n):
            c = i % num_classes
            t = torch.rand(npts, 2) * 2 * math.pi
            r = 0.5 + 0.1 * c
            pts = torch.stack([r * torch.cos(t[:, 0]) * torch.sin(t[:, 1]),
                               r * torch.sin(t[:, 0]) * torch.sin(t[:, 1]),
                               (0.3 + 0.05 * c) * torch.cos(t[:, 1])], -1)
            self.items.append((pts + 0.01 * torch.randn_like(pts), c))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def main():
    model = PointNet2Cls().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = DataLoader(ShapeDataset(), batch_size=8, shuffle=True)
    for epoch in range(2):
        for step, (pts, label) in enumerate(loader):
            logits = model(pts.half())
            loss = F.cross_entropy(logits.float(), label)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 4 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
