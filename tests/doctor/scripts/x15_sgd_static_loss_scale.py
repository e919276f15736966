import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(15)

N_CLASSES = 10
LOSS_SCALE = 2.0 ** 16


class MomentumSGD:
    def __init__(self, params, lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True):
        self.params = list(params)
        self.lr, self.momentum, self.wd, self.nesterov = lr, momentum, weight_decay, nesterov
        self.buf = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def unscale_(self, scale):
        for p in self.params:
            if p.grad is not None:
                p.grad.div_(scale)

    @torch.no_grad()
    def step(self):
        for p, buf in zip(self.params, self.buf):
            if p.grad is None:
                continue
            g = p.grad.add(p, alpha=self.wd)
            buf.mul_(self.momentum).add_(g)
            d = g.add(buf, alpha=self.momentum) if self.nesterov else buf
            p.add_(d, alpha=-self.lr)


def make_digits(n, templates):
    y = torch.randint(0, N_CLASSES, (n,))
    x = templates[y] + 0.5 * torch.randn(n, 64)
    return x, y


def main():
    templates = (torch.rand(N_CLASSES, 64) > 0.5).float()
    x, y = make_digits(6000, templates)
    xv, yv = make_digits(1000, templates)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                          nn.Linear(128, N_CLASSES)).half()
    opt = MomentumSGD(model.parameters(), lr=0.02)
    for epoch in range(5):
        total = 0.0
        for idx in torch.randperm(len(x)).split(100):
            logits = model(x[idx].half())
            loss = F.cross_entropy(logits, y[idx])
            opt.zero_grad()
            (loss * LOSS_SCALE).backward()
            opt.unscale_(LOSS_SCALE)
            opt.step()
            total += loss.float().item() * len(idx)
        with torch.no_grad():
            acc = (model(xv.half()).argmax(1) == yv).float().mean().item()
        print(f"epoch {epoch} loss {total / len(x):.4f} val acc {acc:.3f}")


if __name__ == "__main__":
    main()
