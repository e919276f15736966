"""DGCNN (EdgeConv) classifier for scanned parts, trained in fp16.

The structured-light scanner exports vertices in millimetres. The EdgeConv layers use the
k-NN distances as an extra edge feature (re-using the pairwise matrix computed for k-NN).
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(1)
K = 8
N_PTS = 128


def scan_part(label):
    # bolts (cylinders), washers (rings) and brackets (boxes); sizes in mm
    n = N_PTS
    if label == 0:
        t = rng.uniform(0, 2 * np.pi, n)
        z = rng.uniform(0, 120.0, n)
        p = np.stack([6.0 * np.cos(t), 6.0 * np.sin(t), z], 1)
    elif label == 1:
        t = rng.uniform(0, 2 * np.pi, n)
        r = rng.uniform(8.0, 16.0, n)
        p = np.stack([r * np.cos(t), r * np.sin(t), rng.uniform(0, 2.0, n)], 1)
    else:
        p = rng.uniform([0, 0, 0], [200.0, 40.0, 3.0], size=(n, 3))
    # position on the scanner table
    p = p + rng.uniform(-150.0, 150.0, size=(1, 3)) + np.array([0.0, 0.0, 300.0])
    return p.astype(np.float32)


def knn(x, k):
    # x: (B, C, N)
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x ** 2, dim=1, keepdim=True)
    pairwise = -xx - inner - xx.transpose(2, 1)  # = -||xi - xj||^2
    neg_dist, idx = pairwise.topk(k=k, dim=-1)
    return idx, -neg_dist


def edge_features(x, k):
    B, C, N = x.shape
    idx, dist = knn(x, k)
    base = torch.arange(B, device=x.device).view(-1, 1, 1) * N
    flat = (idx + base).view(-1)
    xt = x.transpose(2, 1).contiguous()
    nbr = xt.view(B * N, -1)[flat].view(B, N, k, C)
    center = xt.view(B, N, 1, C).expand(-1, -1, k, -1)
    feat = torch.cat([nbr - center, center, dist.unsqueeze(-1)], dim=3)
    return feat.permute(0, 3, 1, 2).contiguous()  # (B, 2C+1, N, k)


class EdgeConv(nn.Module):
    def __init__(self, cin, cout, k=K):
        super().__init__()
        self.k = k
        self.conv = nn.Sequential(nn.Conv2d(2 * cin + 1, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.LeakyReLU(0.2))

    def forward(self, x):
        return self.conv(edge_features(x, self.k)).max(dim=-1).values


class DGCNN(nn.Module):
    def __init__(self, n_cls=3):
        super().__init__()
        self.ec1 = EdgeConv(3, 32)
        self.ec2 = EdgeConv(32, 32)
        self.proj = nn.Sequential(nn.Conv1d(64, 128, 1, bias=False), nn.BatchNorm1d(128), nn.LeakyReLU(0.2))
        self.head = nn.Sequential(nn.Linear(128, 64), nn.LeakyReLU(0.2), nn.Linear(64, n_cls))

    def forward(self, pts):
        x1 = self.ec1(pts)
        x2 = self.ec2(x1)
        x = self.proj(torch.cat([x1, x2], 1)).max(dim=-1).values
        return self.head(x)


def main():
    labels = np.repeat(np.arange(3), 24)
    clouds = np.stack([scan_part(l) for l in labels])
    model = DGCNN().half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    for epoch in range(3):
        perm = rng.permutation(len(labels))
        losses = []
        for i in range(0, len(perm), 12):
            b = perm[i:i + 12]
            pts = torch.from_numpy(clouds[b]).half().transpose(1, 2)
            y = torch.from_numpy(labels[b]).long()
            logits = model(pts)
            loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        print(f"epoch {epoch}: loss {np.mean(losses):.4f}")
    print("done")


if __name__ == "__main__":
    main()
