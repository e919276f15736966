import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(4)

N_ITEMS, MAXLEN, D, HEADS = 1500, 20, 32, 2
PAD = 0


def make_sequences(n_users=1200):
    seqs = []
    for u in range(n_users):
        n = int(rng.integers(0, 30))
        start = int(rng.integers(1, N_ITEMS - 40))
        seqs.append([start + int(k) for k in np.cumsum(rng.integers(0, 3, n))] if n else [])
    return seqs


def left_pad(seqs):
    out = torch.full((len(seqs), MAXLEN), PAD, dtype=torch.long)
    for i, s in enumerate(seqs):
        s = s[-MAXLEN:]
        if s:
            out[i, MAXLEN - len(s):] = torch.tensor(s)
    return out


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, keep):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // HEADS)
        scores = scores + (1.0 - keep[:, None].to(scores.dtype)) * -1e9
        att = scores.softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(B, T, D))
        return x + self.ff(self.ln2(x))


class SASRec(nn.Module):
    def __init__(self):
        super().__init__()
        self.item_emb = nn.Embedding(N_ITEMS, D, padding_idx=PAD)
        nn.init.normal_(self.item_emb.weight[1:], std=0.1)
        self.pos_emb = nn.Embedding(MAXLEN, D)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.ln = nn.LayerNorm(D)
        self.register_buffer("causal", torch.tril(torch.ones(MAXLEN, MAXLEN, dtype=torch.bool)))

    def forward(self, seq):
        x = self.item_emb(seq) + self.pos_emb.weight[None]
        keep = self.causal[None] & (seq != PAD)[:, None, :]
        for blk in self.blocks:
            x = blk(x, keep)
        return self.ln(x)


seqs = make_sequences()
train = [s for s in seqs if len(s) >= 3]
inp = left_pad([s[:-1] for s in train])
tgt = left_pad([s[1:] for s in train])

model = SASRec()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(4):
    for s in range(0, len(inp), 128):
        h = model(inp[s:s + 128])
        logits = h @ model.item_emb.weight.T
        loss = F.cross_entropy(logits.view(-1, N_ITEMS), tgt[s:s + 128].reshape(-1), ignore_index=PAD)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

model = model.half().eval()
hist = left_pad([s[:-1] for s in seqs])
last = torch.tensor([s[-1] if s else PAD for s in seqs])
with torch.no_grad():
    h = model(hist)[:, -1]
    scores = (h @ model.item_emb.weight.T).float()
    has_target = last != PAD
    eval_loss = F.cross_entropy(scores[has_target], last[has_target])
    top = scores.topk(10, dim=-1).indices
    hits = (top == last[:, None]).any(-1)[has_target].float()
print(f"eval loss {eval_loss.item():.4f}  HR@10 {hits.mean().item():.4f}")
