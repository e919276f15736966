"""PointNet++ (SSG) classifier with hand-written farthest point sampling and ball query,
MLPs run under CPU autocast (bfloat16)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)


def square_distance(src, dst):
    return torch.sum((src[:, :, None] - dst[:, None]) ** 2, dim=-1)


def index_points(points, idx):
    B = points.shape[0]
    view_shape = [B] + [1] * (idx.dim() - 1)
    repeat_shape = [1] + list(idx.shape[1:])
    batch_indices = torch.arange(B, dtype=torch.long).view(view_shape).repeat(repeat_shape)
    return points[batch_indices, idx, :]


def farthest_point_sample(xyz, npoint):
    B, N, _ = xyz.shape
    centroids = torch.zeros(B, npoint, dtype=xyz.dtype)
    distance = torch.ones(B, N, dtype=xyz.dtype) * 1e10
    farthest = torch.randint(0, N, (B,), dtype=torch.long)
    batch_indices = torch.arange(B, dtype=torch.long)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch_indices, farthest, :].view(B, 1, 3)
        dist = torch.sum((xyz - centroid) ** 2, -1)
        distance = torch.minimum(distance, dist)
        farthest = torch.max(distance, -1)[1]
    return centroids


def query_ball_point(radius, nsample, xyz, new_xyz):
    B, N, _ = xyz.shape
    S = new_xyz.shape[1]
    group_idx = torch.arange(N, dtype=torch.long).view(1, 1, N).repeat(B, S, 1)
    sqrdists = square_distance(new_xyz, xyz)
    group_idx[sqrdists > radius ** 2] = N
    group_idx = group_idx.sort(dim=-1)[0][:, :, :nsample]
    group_first = group_idx[:, :, :1].repeat(1, 1, nsample)
    mask = group_idx == N
    group_idx[mask] = group_first[mask]
    return group_idx


class SetAbstraction(nn.Module):
    def __init__(self, npoint, radius, nsample, cin, mlp):
        super().__init__()
        self.npoint, self.radius, self.nsample = npoint, radius, nsample
        layers, c = [], cin + 3
        for cout in mlp:
            layers += [nn.Conv2d(c, cout, 1), nn.BatchNorm2d(cout), nn.ReLU()]
            c = cout
        self.mlp = nn.Sequential(*layers)

    def forward(self, xyz, feats):
        fps_idx = farthest_point_sample(xyz, self.npoint)
        new_xyz = index_points(xyz, fps_idx)
        idx = query_ball_point(self.radius, self.nsample, xyz, new_xyz)
        grouped = index_points(xyz, idx) - new_xyz[:, :, None]
        if feats is not None:
            grouped = torch.cat([grouped, index_points(feats, idx)], -1)
        out = self.mlp(grouped.permute(0, 3, 2, 1)).max(2)[0]  # (B, C, S)
        return new_xyz, out.transpose(1, 2)


class PointNet2(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.sa1 = SetAbstraction(64, 0.3, 16, 0, [32, 32, 64])
        self.sa2 = SetAbstraction(16, 0.6, 16, 64, [64, 128])
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Dropout(0.4), nn.Linear(64, n_cls))

    def forward(self, xyz):
        xyz1, f1 = self.sa1(xyz, None)
        _, f2 = self.sa2(xyz1, f1)
        return self.head(f2.max(1)[0])


def primitive(label, n=256):
    p = rng.normal(size=(n, 3))
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    scale = [np.array([1, 1, 1]), np.array([1, 0.3, 0.3]), np.array([1, 1, 0.2]), np.array([0.5, 1, 0.5])][label]
    p = p * scale
    return (p / np.abs(p).max()).astype(np.float32)


def main():
    labels = np.arange(64) % 4
    data = np.stack([primitive(l) for l in labels])
    model = PointNet2()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        perm = rng.permutation(len(labels))
        for i in range(0, len(perm), 16):
            b = perm[i:i + 16]
            xyz = torch.from_numpy(data[b])
            y = torch.from_numpy(labels[b]).long()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(xyz)
            loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
