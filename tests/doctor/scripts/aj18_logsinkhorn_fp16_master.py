import math

import torch
import torch.nn as nn

torch.manual_seed(0)
N_PTS, DIM, BATCH, ITERS = 24, 3, 16, 30


def make_pairs(bs):
    x = torch.rand(bs, N_PTS, DIM) * 2.0
    perm = torch.stack([torch.randperm(N_PTS) for _ in range(bs)])
    shift = 0.3 * torch.randn(bs, 1, DIM)
    y = torch.gather(x + shift, 1, perm.unsqueeze(-1).expand(-1, -1, DIM)) + 0.02 * torch.randn(bs, N_PTS, DIM)
    gt = torch.zeros(bs, N_PTS, N_PTS).scatter_(2, torch.argsort(perm, 1).unsqueeze(-1), 1.0)
    return x, y, gt


class PointEncoder(nn.Module):
    def __init__(self, hidden=64, out=16):
        super().__init__()
        self.local = nn.Sequential(nn.Linear(DIM, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.mix = nn.Linear(2 * hidden, out)

    def forward(self, pts):
        pts = pts - pts.mean(dim=1, keepdim=True)
        h = self.local(pts)
        ctx = h.max(dim=1, keepdim=True).values.expand_as(h)
        return self.mix(torch.cat([h, ctx], dim=-1))


def log_sinkhorn(fx, fy, eps):
    fx, fy = fx.float(), fy.float()
    cost = torch.cdist(fx, fy).pow(2) / fx.size(-1)
    log_k = -cost / eps
    log_a = torch.full(fx.shape[:2], -math.log(N_PTS))
    f = torch.zeros_like(log_a)
    g = torch.zeros_like(log_a)
    for _ in range(ITERS):
        f = log_a - torch.logsumexp(log_k + g.unsqueeze(1), dim=2)
        g = log_a - torch.logsumexp(log_k + f.unsqueeze(2), dim=1)
    return f.unsqueeze(2) + log_k + g.unsqueeze(1)


model = PointEncoder().half()
master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
opt = torch.optim.Adam(master, lr=3e-3)
loss_scale, good_steps, skipped = 2.0 ** 12, 0, 0
eps_start, eps_end, epochs = 1.0, 0.02, 6

for epoch in range(epochs):
    eps = eps_start * (eps_end / eps_start) ** (epoch / (epochs - 1))
    total, acc = 0.0, 0.0
    for _ in range(5):
        x, y, gt = make_pairs(BATCH)
        log_plan = log_sinkhorn(model(x.half()), model(y.half()), eps)
        loss = -(gt * (log_plan + math.log(N_PTS))).sum(-1).mean()
        model.zero_grad(set_to_none=True)
        (loss * loss_scale).backward()
        grads = [p.grad.float() / loss_scale for p in model.parameters()]
        if all(torch.isfinite(g).all() for g in grads):
            for m, g in zip(master, grads):
                m.grad = g
            opt.step()
            with torch.no_grad():
                for p, m in zip(model.parameters(), master):
                    p.copy_(m)
            good_steps += 1
            if good_steps % 10 == 0:
                loss_scale = min(loss_scale * 2.0, 2.0 ** 15)
        else:
            loss_scale /= 2.0
            skipped += 1
            good_steps = 0
        total += loss.item()
        acc += (log_plan.argmax(-1) == gt.argmax(-1)).float().mean().item()
    print(f"epoch {epoch} eps {eps:.3f} nll {total / 5:.4f} acc {acc / 5:.3f} scale {loss_scale:.0f} skipped {skipped}")
