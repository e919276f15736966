import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, SEQ, N_LAYERS = 40, 64, 4, 24, 2


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, prefix_kv=None):
        b, L, d = x.shape
        q, k, v = self.qkv(x).view(b, L, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        if prefix_kv is not None:
            pk, pv = prefix_kv
            k = torch.cat([pk, k], dim=2)
            v = torch.cat([pv, v], dim=2)
        o = F.scaled_dot_product_attention(q, k, v)
        return self.proj(o.transpose(1, 2).reshape(b, L, d))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, prefix_kv=None):
        x = x + self.attn(self.ln1(x), prefix_kv)
        return x + self.mlp(self.ln2(x))


class Encoder(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(SEQ, D)
        self.blocks = nn.ModuleList([Block(D, HEADS) for _ in range(N_LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.cls = nn.Linear(D, n_classes)

    def forward(self, ids, prefixes=None):
        x = self.emb(ids) + self.pos(torch.arange(ids.shape[1]))
        for i, blk in enumerate(self.blocks):
            x = blk(x, None if prefixes is None else prefixes[i])
        return self.cls(self.ln_f(x).mean(1))


class PrefixEncoder(nn.Module):
    """Reparameterised prefixes (Li & Liang): an MLP maps a small table to per-layer k/v."""

    def __init__(self, n_prefix=8, bottleneck=128):
        super().__init__()
        self.n_prefix = n_prefix
        self.table = nn.Parameter(torch.randn(n_prefix, D) * 0.02)
        self.mlp = nn.Sequential(nn.Linear(D, bottleneck), nn.Tanh(),
                                 nn.Linear(bottleneck, N_LAYERS * 2 * D))

    def forward(self, batch_size):
        kv = self.mlp(self.table).view(self.n_prefix, N_LAYERS, 2, HEADS, D // HEADS)
        kv = kv.permute(1, 2, 3, 0, 4).unsqueeze(2).expand(-1, -1, batch_size, -1, -1, -1)
        return [(kv[i, 0], kv[i, 1]) for i in range(N_LAYERS)]


def task_batch(bs, task):
    ids = torch.randint(0, VOCAB, (bs, SEQ))
    if task == "pretrain":
        y = (ids[:, 0] + ids[:, -1]) % 2
    else:
        y = ((ids == 3).sum(1) > (ids == 7).sum(1)).long()
    return ids, y


base = Encoder(n_classes=2)
opt = torch.optim.AdamW(base.parameters(), lr=1e-3)
for step in range(80):
    ids, y = task_batch(64, "pretrain")
    loss = F.cross_entropy(base(ids), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"base pretrain loss {loss.item():.4f}")

base.cls = nn.Linear(D, 2)
base.requires_grad_(False)
base.to(torch.bfloat16).eval()
base.cls.requires_grad_(True)
prefix = PrefixEncoder()
params = list(prefix.parameters()) + list(base.cls.parameters())
opt = torch.optim.AdamW(params, lr=3e-3)
print(f"trainable params: {sum(p.numel() for p in params)}")

for step in range(150):
    ids, y = task_batch(64, "downstream")
    logits = base(ids, prefixes=prefix(ids.shape[0]))
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 30 == 0:
        print(f"prefix step {step:3d} loss {loss.item():.4f}")

with torch.no_grad():
    ids, y = task_batch(512, "downstream")
    acc = (base(ids, prefixes=prefix(512)).argmax(-1) == y).float().mean().item()
print(f"downstream acc {acc:.3f}")
