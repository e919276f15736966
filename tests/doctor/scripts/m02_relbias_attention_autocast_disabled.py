"""Sequence classifier with hand-written attention and a learned relative-position bias.
The whole step runs under bf16 autocast; the attention-score computation is kept
out of autocast "for numerical stability"."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SEQ, D, HEADS, NCLS = 24, 48, 4, 3


class RelPosSelfAttention(nn.Module):
    def __init__(self, d, heads, max_len):
        super().__init__()
        self.heads = heads
        self.dh = d // heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.max_len = max_len
        self.rel_bias = nn.Parameter(torch.zeros(heads, 2 * max_len - 1))

    def bias(self, T):
        pos = torch.arange(T)
        rel = pos[None, :] - pos[:, None] + self.max_len - 1
        return self.rel_bias[:, rel]  # (heads, T, T)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.q(x).view(B, T, self.heads, self.dh).transpose(1, 2)
        k = self.k(x).view(B, T, self.heads, self.dh).transpose(1, 2)
        v = self.v(x).view(B, T, self.heads, self.dh).transpose(1, 2)
        # softmax in full precision
        with torch.autocast(device_type="cpu", enabled=False):
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.dh) + self.bias(T)
            probs = scores.softmax(dim=-1)
            ctx = probs @ v
        ctx = ctx.transpose(1, 2).reshape(B, T, -1)
        return self.o(ctx)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = RelPosSelfAttention(D, HEADS, SEQ)
        self.norm1 = nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, 2 * D), nn.ReLU(), nn.Linear(2 * D, D))
        self.norm2 = nn.LayerNorm(D)

    def forward(self, x):
        x = self.norm1(x + self.attn(x))
        return self.norm2(x + self.ff(x))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, D)
        self.layers = nn.ModuleList([EncoderLayer() for _ in range(2)])
        self.cls = nn.Linear(D, NCLS)

    def forward(self, x):
        h = self.inp(x)
        for layer in self.layers:
            h = layer(h)
        return self.cls(h.mean(1))


def batch(bs=32):
    x = torch.randn(bs, SEQ, 8)
    y = (x[:, :, 0].sum(1) > 0).long() + (x[:, :, 1].sum(1) > 2).long()
    return x, y


model = Classifier()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(40):
    x, y = batch()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, loss.item())
print("done")
