import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_PARTS = 4


class CosineClassifier(nn.Module):
    def __init__(self, dim, n_cls, scale=30.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_cls, dim))
        self.scale = scale

    def forward(self, x):
        return self.scale * F.normalize(x, dim=-1) @ F.normalize(self.weight, dim=-1).T


class PointNetSeg(nn.Module):
    def __init__(self, n_parts=NUM_PARTS):
        super().__init__()
        self.local = nn.Sequential(nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                   nn.Conv1d(64, 64, 1), nn.BatchNorm1d(64), nn.ReLU())
        self.glob = nn.Sequential(nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
                                  nn.Conv1d(128, 256, 1))
        self.fuse = nn.Sequential(nn.Conv1d(64 + 256, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
                                  nn.Conv1d(128, 64, 1))
        self.seg_head = CosineClassifier(64, n_parts)

    def forward(self, pts):
        x = pts.transpose(1, 2)
        local = self.local(x)
        g = self.glob(local).max(-1, keepdim=True).values.expand(-1, -1, x.shape[-1])
        h = self.fuse(torch.cat([local, g], 1)).transpose(1, 2)
        return self.seg_head(h)


def make_mug_batch(B=6, N=256):
    pts, labels = [], []
    for _ in range(B):
        n_body = N // 2
        t = torch.rand(n_body) * 6.2832
        body = torch.stack([0.4 * torch.cos(t), torch.rand(n_body) * 1.2 - 0.6, 0.4 * torch.sin(t)], -1)
        n_bot = N // 8
        rr, tt = 0.4 * torch.rand(n_bot).sqrt(), torch.rand(n_bot) * 6.2832
        bottom = torch.stack([rr * torch.cos(tt), torch.full((n_bot,), -0.6), rr * torch.sin(tt)], -1)
        n_handle = N // 4
        s = torch.rand(n_handle) * 3.1416
        handle = torch.stack([0.4 + 0.25 * torch.sin(s), 0.3 * torch.cos(s), 0.03 * torch.randn(n_handle)], -1)
        n_rim = N - n_body - n_bot - n_handle
        tr = torch.rand(n_rim) * 6.2832
        rim = torch.stack([0.42 * torch.cos(tr), torch.full((n_rim,), 0.6), 0.42 * torch.sin(tr)], -1)
        p = torch.cat([body, bottom, handle, rim])
        l = torch.cat([torch.full((n_body,), 0), torch.full((n_bot,), 1), torch.full((n_handle,), 2), torch.full((n_rim,), 3)])
        perm = torch.randperm(N)
        pts.append(p[perm] + 0.01 * torch.randn(N, 3))
        labels.append(l[perm])
    return torch.stack(pts), torch.stack(labels)


def smoothed_targets(labels, n_cls, eps=0.1):
    return F.one_hot(labels, n_cls).float() * (1 - eps) + eps / n_cls


def main():
    model = PointNetSeg().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    for step in range(16):
        pts, labels = make_mug_batch()
        logits = model(pts.half())
        probs = logits.softmax(dim=-1)
        loss = -(smoothed_targets(labels, NUM_PARTS) * probs.float().log()).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step < 3 or step % 5 == 0 or step == 15:
            miou_proxy = (logits.argmax(-1) == labels).float().mean()
            print(f"step {step:2d} loss {loss.item():.4f} point acc {miou_proxy.item():.3f}")


if __name__ == "__main__":
    main()
