import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
VOCAB, D, HEADS, MAX_LEN, N_CLASSES = 120, 96, 4, 40, 3


class LowMemLayerNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, unbiased=False, keepdim=True)
        xhat = (x - mean) * torch.rsqrt(var + eps)
        ctx.save_for_backward(x.to(torch.float16), weight)
        ctx.eps = eps
        return xhat * weight + bias

    @staticmethod
    def backward(ctx, grad_out):
        x16, weight = ctx.saved_tensors
        mean = x16.mean(-1, keepdim=True)
        var = x16.var(-1, unbiased=False, keepdim=True)
        rstd = torch.rsqrt(var + ctx.eps)
        xhat = ((x16 - mean) * rstd).float()
        rstd = rstd.float()
        g = grad_out * weight
        dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
        dims = tuple(range(grad_out.dim() - 1))
        return dx, (grad_out * xhat).sum(dims), grad_out.sum(dims), None


class LowMemLayerNorm(nn.Module):
    def __init__(self, d, eps=1e-12):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
        self.eps = eps

    def forward(self, x):
        return LowMemLayerNormFn.apply(x, self.weight, self.bias, self.eps)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = LowMemLayerNorm(D), LowMemLayerNorm(D)
        self.attn = nn.MultiheadAttention(D, HEADS, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, pad_mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, key_padding_mask=pad_mask, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class SetTextClassifier(nn.Module):
    def __init__(self, n_layers=3):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D, padding_idx=0)
        self.blocks = nn.ModuleList([Block() for _ in range(n_layers)])
        self.ln_f = LowMemLayerNorm(D)
        self.head = nn.Linear(D, N_CLASSES)

    def forward(self, ids):
        pad = ids == 0
        x = self.emb(ids)
        for blk in self.blocks:
            x = checkpoint(blk, x, pad, use_reentrant=False)
        x = self.ln_f(x).masked_fill(pad[..., None], 0.0)
        return self.head(x.sum(1) / (~pad).sum(1, keepdim=True))


def collate(n):
    lengths = torch.randint(8, MAX_LEN + 1, (n,))
    ids = torch.zeros(n, MAX_LEN, dtype=torch.long)
    labels = torch.randint(0, N_CLASSES, (n,))
    for i, L in enumerate(lengths):
        lo = 1 + labels[i] * 30
        ids[i, :L] = torch.randint(lo, lo + 50, (int(L),))
    return ids, labels


model = SetTextClassifier()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
for step in range(80):
    ids, y = collate(32)
    loss = F.cross_entropy(model(ids), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 16 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    ids, y = collate(512)
    logits = model(ids)
print(f"eval loss {F.cross_entropy(logits, y).item():.4f} acc {(logits.argmax(-1) == y).float().mean().item():.3f}")
