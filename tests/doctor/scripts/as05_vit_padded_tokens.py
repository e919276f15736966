import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
PATCH = 8


class Attention(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask_value", torch.tensor(-1e9))

    def forward(self, x, keep):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        bias = (1.0 - keep[:, None, None, :].to(scores.dtype)) * self.mask_value
        attn = (scores + bias).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, keep):
        x = x + self.attn(self.norm1(x), keep)
        return x + self.mlp(self.norm2(x))


class NaViTLike(nn.Module):
    def __init__(self, dim=64, depth=2, num_classes=10, max_side=8):
        super().__init__()
        self.embed = nn.Linear(3 * PATCH * PATCH, dim)
        self.pos_h = nn.Parameter(0.02 * torch.randn(max_side, dim))
        self.pos_w = nn.Parameter(0.02 * torch.randn(max_side, dim))
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, patches, hw, keep):
        x = self.embed(patches) + self.pos_h[hw[..., 0]] + self.pos_w[hw[..., 1]]
        for blk in self.blocks:
            x = blk(x, keep)
        w = keep.to(x.dtype)[..., None]
        pooled = (self.norm(x) * w).sum(1) / w.sum(1)
        return self.head(pooled)


def patchify(img):
    c, h, w = img.shape
    p = img.unfold(1, PATCH, PATCH).unfold(2, PATCH, PATCH)
    gh, gw = p.shape[1], p.shape[2]
    p = p.permute(1, 2, 0, 3, 4).reshape(gh * gw, c * PATCH * PATCH)
    ys, xs = torch.meshgrid(torch.arange(gh), torch.arange(gw), indexing="ij")
    return p, torch.stack([ys.flatten(), xs.flatten()], -1)


def collate(images):
    items = [patchify(im) for im in images]
    n = max(p.size(0) for p, _ in items)
    patches = torch.zeros(len(items), n, items[0][0].size(1))
    hw = torch.zeros(len(items), n, 2, dtype=torch.long)
    keep = torch.zeros(len(items), n, dtype=torch.bool)
    for i, (p, pos) in enumerate(items):
        patches[i, :p.size(0)], hw[i, :p.size(0)], keep[i, :p.size(0)] = p, pos, True
    return patches, hw, keep


def main():
    model = NaViTLike().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(6):
        sizes = [(random.choice([32, 48, 64]), random.choice([32, 48, 64])) for _ in range(8)]
        images = [torch.randn(3, h, w) for h, w in sizes]
        labels = torch.randint(0, 10, (8,))
        patches, hw, keep = collate(images)
        logits = model(patches.half(), hw, keep)
        loss = F.cross_entropy(logits.float(), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} tokens {keep.sum(1).tolist()} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
