"""Tiny transformer encoder classifier trained in pure bf16 on CPU."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SinusoidalPositions(nn.Module):
    def __init__(self, d_model, max_len=256):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        pos = torch.arange(max_len).unsqueeze(1).float()
        div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.pe = pe  # fixed table, not learned

    def forward(self, x):
        return x + self.pe[: x.size(1)].unsqueeze(0)


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, h, batch_first=True)
        self.ln1 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.ln2 = nn.LayerNorm(d)

    def forward(self, x, pad_mask):
        a, _ = self.attn(x, x, x, key_padding_mask=pad_mask, need_weights=False)
        x = self.ln1(x + a)
        return self.ln2(x + self.ff(x))


class Classifier(nn.Module):
    def __init__(self, vocab=500, d=64, h=4, n_layers=2, n_cls=3):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = SinusoidalPositions(d)
        self.blocks = nn.ModuleList([Block(d, h) for _ in range(n_layers)])
        self.head = nn.Linear(d, n_cls)

    def forward(self, ids):
        pad = ids == 0
        x = self.pos(self.tok(ids))
        for blk in self.blocks:
            x = blk(x, pad)
        x = x.masked_fill(pad.unsqueeze(-1), 0).sum(1) / (~pad).sum(1, keepdim=True)
        return self.head(x)


def batches(n, bs=8, seq=24):
    for _ in range(n):
        ids = torch.randint(1, 500, (bs, seq))
        lens = torch.randint(8, seq + 1, (bs,))
        ids[torch.arange(seq)[None, :] >= lens[:, None]] = 0
        yield ids, torch.randint(0, 3, (bs,))


model = Classifier().to(dtype=torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step, (ids, y) in enumerate(batches(5)):
    logits = model(ids)
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
