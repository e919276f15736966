import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_PTS, DIM, BATCH, ITERS = 24, 3, 16, 30


def make_pairs(bs):
    x = torch.rand(bs, N_PTS, DIM) * 2.0
    perm = torch.stack([torch.randperm(N_PTS) for _ in range(bs)])
    angle = (torch.rand(bs) - 0.5) * 0.6
    rot = torch.zeros(bs, DIM, DIM)
    rot[:, 0, 0], rot[:, 0, 1] = torch.cos(angle), -torch.sin(angle)
    rot[:, 1, 0], rot[:, 1, 1] = torch.sin(angle), torch.cos(angle)
    rot[:, 2, 2] = 1.0
    y = torch.gather(x @ rot, 1, perm.unsqueeze(-1).expand(-1, -1, DIM)) + 0.02 * torch.randn(bs, N_PTS, DIM)
    gt = torch.zeros(bs, N_PTS, N_PTS).scatter_(2, torch.argsort(perm, 1).unsqueeze(-1), 1.0)
    return x, y, gt


class PointEncoder(nn.Module):
    def __init__(self, hidden=64, out=16):
        super().__init__()
        self.local = nn.Sequential(nn.Linear(DIM, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.mix = nn.Linear(2 * hidden, out)

    def forward(self, pts):
        h = self.local(pts)
        ctx = h.max(dim=1, keepdim=True).values.expand_as(h)
        return self.mix(torch.cat([h, ctx], dim=-1))


def sinkhorn(fx, fy, eps):
    cost = (fx.pow(2).sum(-1, keepdim=True) + fy.pow(2).sum(-1).unsqueeze(1)
            - 2 * fx @ fy.transpose(1, 2)).clamp_min(0) / fx.size(-1)
    kernel = torch.exp(-cost / eps)
    a = torch.full(fx.shape[:2], 1.0 / N_PTS, dtype=fx.dtype)
    u, v = torch.ones_like(a), torch.ones_like(a)
    for _ in range(ITERS):
        u = a / (kernel @ v.unsqueeze(-1)).squeeze(-1)
        v = a / (kernel.transpose(1, 2) @ u.unsqueeze(-1)).squeeze(-1)
    return u.unsqueeze(-1) * kernel * v.unsqueeze(1)


model = PointEncoder().half()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
eps_start, eps_end, epochs = 1.0, 0.05, 7

for epoch in range(epochs):
    eps = eps_start * (eps_end / eps_start) ** (epoch / (epochs - 1))
    total, acc = 0.0, 0.0
    for _ in range(5):
        x, y, gt = make_pairs(BATCH)
        plan = sinkhorn(model(x.half()), model(y.half()), eps)
        loss = -(gt.half() * torch.log(plan * N_PTS + 1e-4)).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        acc += (plan.argmax(-1) == gt.argmax(-1)).float().mean().item()
    print(f"epoch {epoch} eps {eps:.3f} matching nll {total / 5:.4f} acc {acc / 5:.3f}")
