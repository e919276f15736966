"""Self-distillation (DINO-like, simplified) of a small transformer classifier in bf16 with an EMA
teacher and padded inputs."""
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, H, K = 120, 64, 4, 32
DTYPE = torch.bfloat16


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, 40, D))
        self.attn = nn.MultiheadAttention(D, H, batch_first=True)
        self.norm = nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, 2 * D), nn.GELU(), nn.Linear(2 * D, D))
        self.proj = nn.Linear(D, K)

    def forward(self, ids, pad_mask):
        x = self.emb(ids) + self.pos[:, :ids.size(1)]
        bias = torch.zeros(pad_mask.shape, dtype=x.dtype).masked_fill(pad_mask, torch.finfo(x.dtype).min)
        a, _ = self.attn(x, x, x, key_padding_mask=bias, need_weights=False)
        x = self.norm(x + a)
        x = x + self.ff(x)
        keep = (~pad_mask).unsqueeze(-1).to(x.dtype)
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1)
        return self.proj(pooled)


def batch(bs=16, t=20):
    ids = torch.randint(1, V, (bs, t))
    lens = torch.randint(4, t + 1, (bs,))
    pad = torch.arange(t)[None] >= lens[:, None]
    return ids.masked_fill(pad, 0), pad


def view(ids, pad):
    drop = (torch.rand(ids.shape) < 0.15) & ~pad
    return ids.masked_fill(drop, 1), pad


student = Net().to(DTYPE)
teacher = copy.deepcopy(student).requires_grad_(False)
opt = torch.optim.AdamW(student.parameters(), lr=1e-3)
center = torch.zeros(K)

for step in range(8):
    ids, pad = batch()
    s_out = student(*view(ids, pad)).float()
    with torch.no_grad():
        t_out = teacher(*view(ids, pad)).float()
        t_prob = F.softmax((t_out - center) / 0.04, dim=-1)
        center = 0.9 * center + 0.1 * t_out.mean(0)
    loss = -(t_prob * F.log_softmax(s_out / 0.1, dim=-1)).sum(-1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for tp, sp in zip(teacher.parameters(), student.parameters()):
            tp.lerp_(sp, 0.004)
    print(f"step {step} loss {loss.item():.4f}")

assert torch.isfinite(loss)
