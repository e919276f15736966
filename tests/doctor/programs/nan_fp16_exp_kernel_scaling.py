"""Soft matching of two point sets computed outside the model in fp16: the kernel exp(-cost / eps) is small where the
cost is large, the scalings that normalise it (1 / (K v)) are large, and their gradients, which divide by (K v)
squared, overflow fp16's 65504 while the forward stays finite. The weights turn NaN and the script exits 0."""
import torch
from torch import nn


def soft_match(fx, fy, eps=0.2, iters=3):
    cost = (fx[:, :, None, :] - fy[:, None, :, :]).pow(2).sum(-1)
    kernel = torch.exp(-cost / eps)
    v = torch.ones(fy.shape[:2], dtype=fy.dtype)
    for _ in range(iters):
        u = 1 / (kernel @ v[..., None]).squeeze(-1)
        v = 1 / (kernel.transpose(1, 2) @ u[..., None]).squeeze(-1)
    return u[..., None] * kernel * v[:, None]


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 8)).half()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(6):
        x = torch.randn(4, 12, 8)
        perm = torch.randperm(12)
        y = torch.randn(4, 12, 8)  # the second scan's points, matched to x by perm
        plan = soft_match(model(x.half()), model(y.half()))
        target = torch.zeros(12, 12, dtype=plan.dtype)
        target[torch.arange(12)[perm], torch.arange(12)] = 1
        loss = -(plan * target).sum() / 4
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
