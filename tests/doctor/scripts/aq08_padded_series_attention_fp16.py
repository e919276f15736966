import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
MAX_LEN, B, D = 96, 16, 64


def ragged_batch(n):
    lengths = torch.randint(40, MAX_LEN + 1, (n,))
    x = torch.zeros(n, MAX_LEN + 1)
    valid = torch.zeros(n, MAX_LEN + 1, dtype=torch.bool)
    for i, l in enumerate(lengths.tolist()):
        t = torch.arange(l + 1, dtype=torch.float32)
        s = torch.sin(2 * math.pi * t / torch.randint(6, 24, (1,)).item()) + 0.1 * torch.randn(l + 1)
        x[i, -(l + 1):] = s
        valid[i, -(l + 1):] = True
    return x[:, :-1], x[:, 1:], valid[:, :-1], valid[:, 1:]


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, h, key_valid):
        b, t, d = h.shape
        q, k, v = self.qkv(h).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        allowed = causal & key_valid[:, None, None, :]
        bias = (~allowed).to(scores.dtype) * -1e9
        attn = F.softmax(scores + bias, dim=-1)
        return self.out((attn @ v).transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, h, key_valid):
        h = h + self.attn(self.ln1(h), key_valid)
        return h + self.mlp(self.ln2(h))


class NextStepModel(nn.Module):
    def __init__(self, d=D, layers=2):
        super().__init__()
        self.inp = nn.Linear(1, d)
        self.pos = nn.Embedding(MAX_LEN, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(layers)])
        self.head = nn.Linear(d, 1)

    def forward(self, x, key_valid):
        h = self.inp(x.unsqueeze(-1)) + self.pos.weight[: x.shape[1]]
        for blk in self.blocks:
            h = blk(h, key_valid)
        return self.head(h).squeeze(-1)


model = NextStepModel().half()
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)

for step in range(20):
    x, y, in_valid, tgt_valid = ragged_batch(B)
    pred = model(x.half(), in_valid)
    err = (pred.float() - y) ** 2
    loss = (err * tgt_valid).sum() / tgt_valid.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0 or step == 19:
        print(f"step {step:2d} masked mse {loss.item():.4f}")

with torch.no_grad():
    x, y, in_valid, tgt_valid = ragged_batch(64)
    pred = model(x.half(), in_valid).float()
    score = ((pred - y) ** 2 * tgt_valid).sum(1) / tgt_valid.sum(1)
    print(f"eval per-series mse: mean {score.mean().item():.4f} max {score.max().item():.4f}")
