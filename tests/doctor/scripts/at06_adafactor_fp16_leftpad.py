import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers.optimization import Adafactor

torch.manual_seed(0)

VOCAB, PAD, BOS = 200, 0, 1


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, mask):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / (C // self.heads) ** 0.5 + mask
        att = scores.softmax(-1) @ v
        x = x + self.proj(att.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp(self.ln2(x))


class Decoder(nn.Module):
    def __init__(self, dim=96, depth=2, heads=4, max_len=64):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(depth))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, VOCAB, bias=False)

    def forward(self, ids, attn_mask):
        T = ids.size(1)
        allowed = torch.ones(T, T, dtype=torch.bool).tril()[None] & attn_mask[:, None, :].bool()
        mask = (~allowed)[:, None].to(self.emb.weight.dtype) * -1e9
        pos = (attn_mask.cumsum(-1) - 1).clamp(min=0)
        x = self.emb(ids) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x, mask)
        return self.head(self.ln(x))


def make_batch(bsz, gen, max_len=40):
    lens = torch.randint(12, max_len + 1, (bsz,), generator=gen)
    ids = torch.full((bsz, max_len), PAD)
    attn = torch.zeros(bsz, max_len, dtype=torch.long)
    for i, n in enumerate(lens.tolist()):
        start = torch.randint(2, VOCAB, (1,), generator=gen).item()
        seq = [BOS] + [2 + (start - 2 + j * 3) % (VOCAB - 2) for j in range(n - 1)]
        ids[i, max_len - n:] = torch.tensor(seq)
        attn[i, max_len - n:] = 1
    labels = ids.masked_fill(attn == 0, -100)
    return ids, attn, labels


def main():
    gen = torch.Generator().manual_seed(0)
    model = Decoder().half()
    opt = Adafactor(model.parameters(), lr=None, relative_step=True, warmup_init=True, scale_parameter=True)
    for step in range(15):
        ids, attn, labels = make_batch(16, gen)
        logits = model(ids, attn)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB).float(), labels[:, 1:].reshape(-1),
                               ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step:2d} loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        ids, attn, labels = make_batch(32, gen)
        logits = model(ids, attn)
        val = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB).float(), labels[:, 1:].reshape(-1))
        pred = logits[:, :-1].argmax(-1)
        acc = (pred == labels[:, 1:])[labels[:, 1:] != -100].float().mean()
    print(f"val loss {val.item():.4f} next-token acc {acc.item():.3f}")


if __name__ == "__main__":
    main()
