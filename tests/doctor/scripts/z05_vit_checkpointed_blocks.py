import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        xf = x.float()
        rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return (xf * rstd).to(x.dtype) * weight

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps)
        x_hat = x * rstd
        grad_weight = (grad_out * x_hat).reshape(-1, x.size(-1)).sum(0)
        g = grad_out * weight
        grad_x = rstd * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return grad_x, grad_weight, None


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-8):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return RMSNormFunction.apply(x, self.weight, self.eps)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.norm1, self.norm2 = RMSNorm(d), RMSNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    def __init__(self, img=16, patch=4, d=48, depth=4, heads=4, classes=10):
        super().__init__()
        n = (img // patch) ** 2
        self.patch_embed = nn.Conv2d(3, d, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = nn.Parameter(torch.randn(1, n, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(depth))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, classes)
        self.grad_ckpt = True

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2) + self.pos_embed
        x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], dim=1)
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False) if self.grad_ckpt and self.training else blk(x)
        return self.head(self.norm(x)[:, 0])


def synthetic_batch(gen, bs=64):
    y = torch.randint(0, 10, (bs,), generator=gen)
    proto = torch.linspace(-1, 1, 10)[y].view(-1, 1, 1, 1)
    x = proto + 0.5 * torch.randn(bs, 3, 16, 16, generator=gen)
    return x, y


def main():
    torch.manual_seed(0)
    model = ViT().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=10)
    gen = torch.Generator().manual_seed(0)
    model.train()
    for step in range(30):
        x, y = synthetic_batch(gen)
        logits = model(x.half())
        loss = F.cross_entropy(logits.float(), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        if step % 5 == 0 or step == 29:
            acc = (logits.argmax(-1) == y).float().mean().item()
            print(f"step {step:2d} loss {loss.item():.4f} acc {acc:.2f}")


if __name__ == "__main__":
    main()
