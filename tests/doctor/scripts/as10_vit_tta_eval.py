import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 6


class MaskedAttention(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, keep):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        scores = scores.masked_fill(~keep[:, None, None, :], torch.finfo(scores.dtype).min)
        return self.out((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = MaskedAttention(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x, keep):
        x = x + self.attn(self.n1(x), keep)
        return x + self.mlp(self.n2(x))


class PatchViT(nn.Module):
    def __init__(self, patch=4, dim=48, depth=2, grid=8):
        super().__init__()
        self.patch = patch
        self.embed = nn.Conv2d(3, dim, patch, patch)
        self.pos = nn.Parameter(0.02 * torch.randn(1, grid * grid, dim))
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, NUM_CLASSES)

    def forward(self, x, valid):
        x = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        keep = F.max_pool2d(valid[:, None].float(), self.patch).flatten(1) > 0
        for blk in self.blocks:
            x = blk(x, keep)
        w = keep[..., None].to(x.dtype)
        return self.head((self.norm(x) * w).sum(1) / w.sum(1))


def make_batch(n=32, size=32):
    y = torch.randint(0, NUM_CLASSES, (n,))
    x = 0.5 * torch.randn(n, 3, size, size) + (y.float() / NUM_CLASSES - 0.5)[:, None, None, None]
    valid = torch.ones(n, size, size, dtype=torch.bool)
    for i in range(n):
        w = int(torch.randint(16, size + 1, ()))
        x[i, :, :, w:] = 0
        valid[i, :, w:] = False
    return x, valid, y


def main():
    model = PatchViT()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(30):
        x, valid, y = make_batch()
        loss = F.cross_entropy(model(x, valid), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 9:
            print(f"step {step} loss {loss.item():.4f}")

    model = model.half().eval()
    confusion = torch.zeros(NUM_CLASSES * NUM_CLASSES, dtype=torch.long)
    top1 = top3 = nll = 0.0
    n_total = 0
    with torch.no_grad():
        for _ in range(4):
            x, valid, y = make_batch(64)
            p = model(x.half(), valid).float().softmax(-1)
            p = p + model(x.flip(3).half(), valid.flip(2)).float().softmax(-1)
            p = p / 2
            nll += F.nll_loss(p.clamp_min(1e-12).log(), y, reduction="sum").item()
            pred3 = p.topk(3, dim=1).indices
            top1 += (pred3[:, 0] == y).sum().item()
            top3 += (pred3 == y[:, None]).any(1).sum().item()
            confusion += torch.bincount(y * NUM_CLASSES + pred3[:, 0], minlength=NUM_CLASSES ** 2)
            n_total += len(y)
    print(f"tta eval nll {nll / n_total:.4f} top1 {top1 / n_total:.3f} top3 {top3 / n_total:.3f}")
    print(confusion.view(NUM_CLASSES, NUM_CLASSES))


if __name__ == "__main__":
    main()
