"""Native-resolution ViT: images of different sizes are patchified and padded to the longest
sequence; a key-padding mask keeps padded patches out of self-attention and out of the
attention-pooling head. Model weights and activations in fp16 to fit bigger batches."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DTYPE = torch.float16
PATCH, DIM, HEADS, NUM_CLASSES = 8, 64, 4, 10


class MHSA(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, key_pad):
        B, N, C = x.shape
        q, k, v = self.qkv(x).view(B, N, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1)) / math.sqrt(self.dh)
        attn = attn.masked_fill(key_pad[:, None, None, :], torch.finfo(attn.dtype).min)
        attn = attn.softmax(-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = MHSA(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x, key_pad):
        x = x + self.attn(self.n1(x), key_pad)
        return x + self.mlp(self.n2(x))


class AttentionPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.query = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.k = nn.Linear(dim, dim)

    def forward(self, x, key_pad):
        scores = (self.query * self.k(x)).sum(-1) / math.sqrt(x.shape[-1])  # B, N
        scores = scores.masked_fill(key_pad, -1e9)
        w = scores.softmax(-1)
        return (w.unsqueeze(-1) * x).sum(1)


class NaViTTiny(nn.Module):
    def __init__(self, depth=2, max_side=64):
        super().__init__()
        self.patch = nn.Linear(3 * PATCH * PATCH, DIM)
        g = max_side // PATCH
        self.pos_h = nn.Parameter(torch.randn(g, DIM) * 0.02)
        self.pos_w = nn.Parameter(torch.randn(g, DIM) * 0.02)
        self.blocks = nn.ModuleList([Block(DIM, HEADS) for _ in range(depth)])
        self.norm = nn.LayerNorm(DIM)
        self.pool = AttentionPool(DIM)
        self.head = nn.Linear(DIM, NUM_CLASSES)

    def forward(self, tokens, pos, key_pad):
        x = self.patch(tokens) + self.pos_h[pos[..., 0]] + self.pos_w[pos[..., 1]]
        for blk in self.blocks:
            x = blk(x, key_pad)
        return self.head(self.pool(self.norm(x), key_pad))


def patchify_and_pack(images):
    """List of (3,H,W) images -> padded tokens, (row, col) positions and key padding mask."""
    seqs, poss = [], []
    for img in images:
        c, h, w = img.shape
        p = img.unfold(1, PATCH, PATCH).unfold(2, PATCH, PATCH)           # 3, gh, gw, P, P
        gh, gw = p.shape[1], p.shape[2]
        seqs.append(p.permute(1, 2, 0, 3, 4).reshape(gh * gw, -1))
        rows, cols = torch.meshgrid(torch.arange(gh), torch.arange(gw), indexing="ij")
        poss.append(torch.stack([rows.flatten(), cols.flatten()], -1))
    n = max(s.shape[0] for s in seqs)
    tokens = torch.zeros(len(seqs), n, seqs[0].shape[1])
    pos = torch.zeros(len(seqs), n, 2, dtype=torch.long)
    pad = torch.ones(len(seqs), n, dtype=torch.bool)
    for i, (s, q) in enumerate(zip(seqs, poss)):
        tokens[i, :len(s)], pos[i, :len(s)], pad[i, :len(s)] = s, q, False
    return tokens, pos, pad


model = NaViTTiny().to(DTYPE)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05, eps=1e-4)
sizes = [(32, 32), (48, 32), (32, 64), (64, 48), (40, 40), (56, 24)]

model.train()
for step in range(6):
    batch = [torch.randn(3, *sizes[(step + j) % len(sizes)]) for j in range(8)]
    y = torch.randint(0, NUM_CLASSES, (8,))
    tokens, pos, pad = patchify_and_pack(batch)
    logits = model(tokens.to(DTYPE), pos, pad)
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} seq {tokens.shape[1]} loss {loss.item():.4f}")
