"""A gated scan written as a custom autograd.Function in fp16: the forward fills an `empty_like` buffer step by step
(its fresh memory is no NaN of the script's), and the backward divides by the running product of the gates, which
underflows to 0 in fp16; the gradients are NaN and the script exits 0."""
import torch
from torch import nn


class GatedScan(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u, gate):
        h = torch.empty_like(u)
        acc = torch.zeros_like(u[:, 0])
        for t in range(u.shape[1]):
            acc = acc * gate[:, t] + u[:, t]
            h[:, t] = acc
        decay = torch.cumprod(gate, dim=1)
        ctx.save_for_backward(decay)
        return h

    @staticmethod
    def backward(ctx, grad_h):
        (decay,) = ctx.saved_tensors
        acc = torch.flip(torch.cumsum(torch.flip(grad_h * decay, [1]), 1), [1])
        return acc / decay, None


class Mixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)

    def forward(self, x):
        return GatedScan.apply(self.inp(x), torch.full_like(x, 0.5))


def main():
    torch.manual_seed(0)
    model = Mixer(8).half()
    loss = model(torch.randn(2, 64, 8, dtype=torch.float16)).float().mean()
    loss.backward()
    print("grad finite:", bool(torch.isfinite(model.inp.weight.grad).all()))


if __name__ == "__main__":
    main()
