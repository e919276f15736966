"""Quantisation-aware training (int8 fake-quant, straight-through estimator) in bf16.

FakeQuantLinear keeps fp32 per-channel scales computed from the weights.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class FakeQuantMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, scale):
        w_q = torch.clamp(torch.round(weight / scale), -127, 127) * scale
        ctx.save_for_backward(x, weight, scale)
        return x @ w_q.to(x.dtype).t()

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, scale = ctx.saved_tensors
        w_q = torch.clamp(torch.round(weight / scale), -127, 127) * scale
        grad_x = grad_out @ w_q
        grad_w = grad_out.flatten(0, -2).t() @ x.flatten(0, -2)   # straight-through
        return grad_x, grad_w, None


class FakeQuantLinear(nn.Linear):
    def forward(self, x):
        scale = (self.weight.detach().float().abs().amax(dim=1, keepdim=True) / 127).clamp_min(1e-8)
        out = FakeQuantMatmul.apply(x, self.weight, scale)
        return out + self.bias


class MLPBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = FakeQuantLinear(d, 4 * d)
        self.fc2 = FakeQuantLinear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class QATNet(nn.Module):
    def __init__(self, d_in=20, d=48, n_blocks=2, n_cls=5):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.Sequential(*[MLPBlock(d) for _ in range(n_blocks)])
        self.head = nn.Linear(d, n_cls)

    def forward(self, x):
        return self.head(self.blocks(self.inp(x)))


def train(steps=4):
    model = QATNet().to(torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(steps):
        x = torch.randn(32, 20, dtype=torch.bfloat16)
        y = torch.randint(0, 5, (32,))
        logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    train()
