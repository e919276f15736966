import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(11)

N_ITEMS, MAXLEN, D, HEADS = 600, 16, 32, 4
PAD = 0


def sessions(n=1000):
    out = []
    for _ in range(n):
        k = int(rng.integers(0, 25))
        genre = int(rng.integers(0, 20))
        out.append((genre * 29 + rng.integers(1, 30, k)).tolist())
    return out


def pad_left(batch):
    x = torch.zeros(len(batch), MAXLEN, dtype=torch.long)
    for r, s in enumerate(batch):
        s = s[-MAXLEN:]
        if s:
            x[r, -len(s):] = torch.tensor(s)
    return x


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, D)

    def forward(self, x, allowed):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) * (D // HEADS) ** -0.5
        att = att.masked_fill(~allowed[:, None], torch.finfo(att.dtype).min)
        att = att.float().softmax(-1).to(v.dtype)
        att = att * allowed[:, None].any(-1, keepdim=True)
        return self.out((att @ v).transpose(1, 2).reshape(B, T, D))


class SASRec(nn.Module):
    def __init__(self):
        super().__init__()
        self.items = nn.Embedding(N_ITEMS, D, padding_idx=PAD)
        self.pos = nn.Parameter(torch.randn(MAXLEN, D) * 0.02)
        self.attn = nn.ModuleList(CausalSelfAttention() for _ in range(2))
        self.norms = nn.ModuleList(nn.LayerNorm(D) for _ in range(2))
        self.final = nn.LayerNorm(D)
        nn.init.normal_(self.items.weight, std=0.05)

    def forward(self, seq):
        valid = seq != PAD
        allowed = torch.tril(torch.ones(MAXLEN, MAXLEN, dtype=torch.bool))[None] & valid[:, None, :]
        x = self.items(seq) + self.pos
        for attn, ln in zip(self.attn, self.norms):
            x = x + attn(ln(x), allowed)
        return self.final(x) * valid[..., None]


data = sessions()
train = [s for s in data if len(s) >= 2]
src, dst = pad_left([s[:-1] for s in train]), pad_left([s[1:] for s in train])

model = SASRec()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
for epoch in range(4):
    perm = torch.randperm(len(src))
    for s in range(0, len(src), 128):
        b = perm[s:s + 128]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = model(src[b])
            logits = h @ model.items.weight.T
        loss = F.cross_entropy(logits.float().flatten(0, 1), dst[b].flatten(), ignore_index=PAD)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} next-item loss {loss.item():.4f}")

model.eval()
hist = pad_left([s[:-1] for s in data])
target = torch.tensor([s[-1] if s else PAD for s in data])
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    scores = (model(hist)[:, -1] @ model.items.weight.T).float()
keep = target != PAD
val_loss = F.cross_entropy(scores[keep], target[keep])
ranks = (scores[keep] > scores[keep].gather(1, target[keep, None])).sum(-1)
ndcg = torch.where(ranks < 10, 1.0 / torch.log2(ranks.float() + 2), torch.zeros(()))
print(f"cold-start users: {(~keep).sum().item()}  val loss {val_loss.item():.4f}  NDCG@10 {ndcg.mean().item():.4f}")
print("all scores finite:", bool(torch.isfinite(scores).all()))
