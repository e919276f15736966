"""Set-encoder with a hand-written L2-normalisation autograd.Function.

Sequences are zero-padded to a common length; padded slots are zero vectors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class L2Normalize(torch.autograd.Function):
    """y = x / ||x|| with a memory-saving hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1, keepdim=True)
        y = x / norm.clamp_min(1e-6)          # forward guarded against 0
        ctx.save_for_backward(x, norm)
        return y

    @staticmethod
    def backward(ctx, g):
        x, norm = ctx.saved_tensors
        y = x / norm
        return (g - y * (g * y).sum(-1, keepdim=True)) / norm


class SetEncoder(nn.Module):
    def __init__(self, d_in=16, d=32, n_cls=4):
        super().__init__()
        self.proj = nn.Linear(d_in, d, bias=False)
        self.mix = nn.Linear(d, d)
        self.cls = nn.Linear(d, n_cls)

    def forward(self, x, mask):
        h = self.proj(x) * mask.unsqueeze(-1)      # zero out padded items
        h = L2Normalize.apply(h)
        h = torch.relu(self.mix(h))
        h = (h * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        return self.cls(h)


def get_batch(bs=8, n=10, d_in=16):
    x = torch.randn(bs, n, d_in)
    lens = torch.randint(3, n + 1, (bs,))
    mask = (torch.arange(n)[None] < lens[:, None]).float()
    x = x * mask.unsqueeze(-1)
    return x, mask, torch.randint(0, 4, (bs,))


model = SetEncoder()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(5):
    x, mask, y = get_batch()
    logits = model(x, mask)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
