import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

LOSS_SCALE = 2.0 ** 16
ACCUM_STEPS = 4


class ResBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class DeepMLP(nn.Module):
    def __init__(self, d_in=40, d=96, depth=6, n_classes=10, grad_ckpt=True):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.ModuleList(ResBlock(d) for _ in range(depth))
        self.out = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, n_classes))
        self.grad_ckpt = grad_ckpt

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = checkpoint(blk, h, use_reentrant=False) if self.grad_ckpt and self.training else blk(h)
        return self.out(h)


class MasterWeights:
    """fp32 master copy of an fp16 model, plain SGD with momentum on the master copy."""

    def __init__(self, model, lr=0.05, momentum=0.9):
        self.model_params = [p for p in model.parameters() if p.requires_grad]
        self.master = [p.detach().float().clone() for p in self.model_params]
        self.bufs = [torch.zeros_like(m) for m in self.master]
        self.lr, self.momentum = lr, momentum

    @torch.no_grad()
    def step(self, loss_scale):
        for p, m, buf in zip(self.model_params, self.master, self.bufs):
            g = p.grad.float() / loss_scale
            buf.mul_(self.momentum).add_(g)
            m.add_(buf, alpha=-self.lr)
            p.copy_(m)

    def zero_grad(self):
        for p in self.model_params:
            p.grad = None


def make_data(n=4096, d=40, k=10, seed=0):
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(d, k, generator=g)
    x = torch.randn(n, d, generator=g)
    y = (x @ W + 0.5 * torch.randn(n, k, generator=g)).argmax(-1)
    return x, y


def main():
    torch.manual_seed(0)
    x, y = make_data()
    model = DeepMLP().half()
    opt = MasterWeights(model, lr=0.05)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)
    model.train()
    running, n_updates = 0.0, 0
    for i, (xb, yb) in enumerate(loader):
        logits = model(xb.half())
        loss = F.cross_entropy(logits, yb) / ACCUM_STEPS
        (loss * LOSS_SCALE).backward()
        running += loss.item()
        if (i + 1) % ACCUM_STEPS == 0:
            opt.step(LOSS_SCALE)
            opt.zero_grad()
            if n_updates % 4 == 0:
                print(f"update {n_updates:3d} loss {running:.4f}")
            running, n_updates = 0.0, n_updates + 1
        if n_updates == 24:
            break


if __name__ == "__main__":
    main()
