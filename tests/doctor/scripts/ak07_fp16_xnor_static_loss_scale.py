import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class BinarizeSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x) + (x == 0).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).to(g.dtype)


class XNORLinear(nn.Linear):
    def forward(self, x):
        alpha = self.weight.abs().mean(dim=1, keepdim=True).detach()
        wb = BinarizeSTE.apply(self.weight) * alpha
        xb = BinarizeSTE.apply(x)
        return F.linear(xb, wb, self.bias)


class BNNMLP(nn.Module):
    def __init__(self, n_in=100, hidden=256, n_classes=10):
        super().__init__()
        self.fc_in = nn.Linear(n_in, hidden)
        self.bn_in = nn.BatchNorm1d(hidden)
        self.blocks = nn.ModuleList([XNORLinear(hidden, hidden) for _ in range(2)])
        self.bns = nn.ModuleList([nn.BatchNorm1d(hidden) for _ in range(2)])
        self.fc_out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h = self.bn_in(self.fc_in(x))
        for fc, bn in zip(self.blocks, self.bns):
            h = h + bn(fc(h))
        return self.fc_out(F.hardtanh(h))


def make_data(n=2048, n_in=100, n_classes=10):
    w = torch.randn(n_in, n_classes)
    x = torch.randn(n, n_in)
    y = (x @ w + 0.5 * torch.randn(n, n_classes)).argmax(1)
    return x, y


x, y = make_data()
loader = DataLoader(TensorDataset(x, y), batch_size=128, shuffle=True, drop_last=True)

model = BNNMLP().half()
master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
opt = torch.optim.Adam(master, lr=1e-3)
loss_scale = 2.0 ** 17

for epoch in range(3):
    seen, total = 0, 0.0
    for step, (xb, yb) in enumerate(loader):
        logits = model(xb.half())
        loss = F.cross_entropy(logits, yb)
        model.zero_grad(set_to_none=True)
        (loss * loss_scale).backward()
        for m, p in zip(master, model.parameters()):
            m.grad = p.grad.detach().float() / loss_scale
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for m, p in zip(master, model.parameters()):
                p.copy_(m)
        total += loss.item() * yb.numel()
        seen += yb.numel()
        if step % 5 == 0:
            print(f"epoch {epoch} step {step:2d} loss {loss.item():.4f} scale {loss_scale:.0f}")
    print(f"epoch {epoch} mean loss {total / seen:.4f}")
