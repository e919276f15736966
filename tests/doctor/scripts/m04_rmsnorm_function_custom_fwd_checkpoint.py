"""Tiny pre-norm MLP-mixer style sequence model with a hand-written RMSNorm
autograd.Function (registered for autocast with custom_fwd/custom_bwd) and activation
checkpointing of every block; trained with bf16 autocast."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
SEQ, D, NCLS = 16, 64, 4


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx, x, weight, eps):
        rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        xhat = x * rstd
        ctx.save_for_backward(xhat, weight, rstd)
        return xhat * weight

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, grad_out):
        xhat, weight, rstd = ctx.saved_tensors
        grad_w = (grad_out * xhat).reshape(-1, xhat.shape[-1]).sum(0)
        gx = grad_out * weight
        grad_x = rstd * (gx - xhat * (gx * xhat).mean(-1, keepdim=True))
        return grad_x, grad_w, None


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return RMSNormFunction.apply(x, self.weight, self.eps)


class MixerBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(D)
        self.token_mix = nn.Sequential(nn.Linear(SEQ, 2 * SEQ), nn.GELU(), nn.Linear(2 * SEQ, SEQ))
        self.norm2 = RMSNorm(D)
        self.channel_mix = nn.Sequential(nn.Linear(D, 2 * D), nn.GELU(), nn.Linear(2 * D, D))

    def forward(self, x):
        x = x + self.token_mix(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mix(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(6, D)
        self.blocks = nn.ModuleList([MixerBlock() for _ in range(3)])
        self.norm = RMSNorm(D)
        self.head = nn.Linear(D, NCLS)

    def forward(self, x):
        h = self.embed(x)
        for blk in self.blocks:
            h = checkpoint(blk, h, use_reentrant=False) if self.training else blk(h)
        return self.head(self.norm(h).mean(1))


def batch(n):
    x = torch.randn(n, SEQ, 6)
    y = (x[:, :, 0].mean(1) > 0).long() * 2 + (x[:, :, 1].std(1) > 1).long()
    return x, y


model = Mixer()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
for step in range(80):
    x, y = batch(32)
    model.train()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        logits = model(x)
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
x, y = batch(256)
with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    acc = (model(x).argmax(-1) == y).float().mean()
print("eval accuracy", acc.item())
assert all(torch.isfinite(p).all() for p in model.parameters())
