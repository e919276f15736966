import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(11)
L_MAX, N_BINS, C_Z = 32, 24, 32


def make_batch(bs):
    lengths = torch.randint(16, L_MAX + 1, (bs,))
    seq = torch.randint(0, 20, (bs, L_MAX))
    mask = (torch.arange(L_MAX)[None] < lengths[:, None]).float()
    idx = torch.arange(L_MAX, dtype=torch.float32)
    coords = torch.stack([2.3 * torch.cos(1.7 * idx), 2.3 * torch.sin(1.7 * idx), 1.5 * idx], -1)
    coords = coords + 0.3 * torch.randn(bs, L_MAX, 3)
    dist = torch.cdist(coords, coords)
    bins = torch.bucketize(dist, torch.linspace(2.0, 22.0, N_BINS - 1))
    return seq * mask.long(), mask, bins


class TriangleAttentionStartingNode(nn.Module):
    def __init__(self, c, heads=4, inf=1e9):
        super().__init__()
        self.norm = nn.LayerNorm(c)
        self.qkv = nn.Linear(c, 3 * c, bias=False)
        self.bias = nn.Linear(c, heads, bias=False)
        self.gate = nn.Linear(c, c)
        self.out = nn.Linear(c, c)
        self.heads, self.inf = heads, inf

    def forward(self, z, pair_mask):
        b, l, _, c = z.shape
        z = self.norm(z)
        q, k, v = self.qkv(z).view(b, l, l, 3, self.heads, c // self.heads).unbind(3)
        logits = torch.einsum("bijhd,bikhd->bhijk", q, k) / (c // self.heads) ** 0.5
        logits = logits + self.bias(z).permute(0, 3, 1, 2)[:, :, None]
        logits = logits + (self.inf * (pair_mask - 1))[:, None, :, None, :]
        attn = torch.softmax(logits, dim=-1)
        o = torch.einsum("bhijk,bikhd->bijhd", attn, v).reshape(b, l, l, c)
        return torch.sigmoid(self.gate(z)) * self.out(o)


class TriangleMultiplicationOutgoing(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.norm = nn.LayerNorm(c)
        self.ab = nn.Linear(c, 2 * c)
        self.g = nn.Linear(c, c)
        self.out = nn.Sequential(nn.LayerNorm(c), nn.Linear(c, c))

    def forward(self, z, pair_mask):
        z = self.norm(z)
        a, bb = (torch.sigmoid(self.ab(z)) * pair_mask[..., None]).chunk(2, -1)
        x = torch.einsum("bikc,bjkc->bijc", a, bb) / a.shape[1]
        return torch.sigmoid(self.g(z)) * self.out(x)


class PairStack(nn.Module):
    def __init__(self, c=C_Z, depth=2):
        super().__init__()
        self.left = nn.Embedding(21, c)
        self.right = nn.Embedding(21, c)
        self.relpos = nn.Embedding(2 * 16 + 1, c)
        self.tri_att = nn.ModuleList([TriangleAttentionStartingNode(c) for _ in range(depth)])
        self.tri_mul = nn.ModuleList([TriangleMultiplicationOutgoing(c) for _ in range(depth)])
        self.distogram = nn.Linear(c, N_BINS)

    def forward(self, seq, mask):
        pair_mask = mask[:, :, None] * mask[:, None, :]
        pos = torch.arange(seq.shape[1])
        rel = (pos[None] - pos[:, None]).clamp(-16, 16) + 16
        z = self.left(seq)[:, :, None] + self.right(seq)[:, None] + self.relpos(rel)
        for att, mul in zip(self.tri_att, self.tri_mul):
            z = z + att(z, pair_mask)
            z = z + mul(z, pair_mask)
        logits = self.distogram(z)
        return logits + logits.transpose(1, 2), pair_mask


def main():
    model = PairStack().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)
    for step in range(12):
        seq, mask, bins = make_batch(4)
        logits, pair_mask = model(seq, mask.half())
        ce = F.cross_entropy(logits.float().permute(0, 3, 1, 2), bins, reduction="none")
        loss = (ce * pair_mask.float()).sum() / pair_mask.float().sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 3 == 0:
            print(f"step {step} distogram loss {loss.item():.4f}")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(prefix="pair_"), "pair_stack.pt"))


if __name__ == "__main__":
    main()
