import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def knn(x, k):
    x = x.float()
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = (x ** 2).sum(1, keepdim=True)
    neg_dist = -xx - inner - xx.transpose(2, 1)
    return neg_dist.topk(k=k, dim=-1).indices


def graph_feature(x, k):
    B, C, N = x.shape
    idx = knn(x, k)
    x_t = x.transpose(2, 1).contiguous()
    idx_flat = idx.reshape(B, N * k, 1).expand(-1, -1, C)
    neighbors = torch.gather(x_t, 1, idx_flat).view(B, N, k, C)
    center = x_t.unsqueeze(2).expand(-1, -1, k, -1)
    return torch.cat([neighbors - center, center], dim=3).permute(0, 3, 1, 2).contiguous()


class EdgeConv(nn.Module):
    def __init__(self, in_ch, out_ch, k):
        super().__init__()
        self.k = k
        self.conv = nn.Sequential(nn.Conv2d(2 * in_ch, out_ch, 1, bias=False), nn.BatchNorm2d(out_ch), nn.LeakyReLU(0.2))

    def forward(self, x):
        return self.conv(graph_feature(x, self.k)).max(dim=-1).values


class DGCNN(nn.Module):
    def __init__(self, num_classes=5, k=8):
        super().__init__()
        self.ec1 = EdgeConv(3, 32, k)
        self.ec2 = EdgeConv(32, 32, k)
        self.ec3 = EdgeConv(32, 64, k)
        self.proj = nn.Sequential(nn.Conv1d(128, 128, 1, bias=False), nn.BatchNorm1d(128), nn.LeakyReLU(0.2))
        self.cls = nn.Sequential(nn.Linear(256, 64), nn.LeakyReLU(0.2), nn.Linear(64, num_classes))

    def forward(self, pts):
        x1 = self.ec1(pts)
        x2 = self.ec2(x1)
        x3 = self.ec3(x2)
        h = self.proj(torch.cat([x1, x2, x3], 1))
        h = torch.cat([h.max(-1).values, h.mean(-1)], 1)
        return self.cls(h)


def make_data(n=48, npts=128, num_classes=5):
    pts, labels = [], []
    for i in range(n):
        c = i % num_classes
        p = torch.randn(npts, 3)
        p = p / p.norm(dim=-1, keepdim=True)
        p = p * torch.tensor([1.0, 0.4 + 0.15 * c, 1.0 - 0.1 * c])
        pts.append(p + 0.02 * torch.randn_like(p))
        labels.append(c)
    return TensorDataset(torch.stack(pts).transpose(1, 2).contiguous(), torch.tensor(labels))


def main():
    model = DGCNN()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    loader = DataLoader(make_data(), batch_size=16, shuffle=True)
    for epoch in range(2):
        model.train()
        total = 0.0
        for pts, y in loader:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(pts)
            loss = F.cross_entropy(logits.float(), y, label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} train loss {total / len(loader):.4f}")
    model.eval()
    correct = 0
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        for pts, y in loader:
            correct += (model(pts).argmax(-1) == y).sum().item()
    print(f"train acc {correct / len(loader.dataset):.3f}")


if __name__ == "__main__":
    main()
