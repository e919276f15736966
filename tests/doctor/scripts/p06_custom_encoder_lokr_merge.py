"""LoKr on a hand-written transformer encoder; merge the adapter and export the model for inference."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from peft import LoKrConfig, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ, D, N_CLS, PAD = 100, 20, 64, 4, 0


class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.dk = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, pad_mask):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.dk).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.dk)
        scores = scores.masked_fill(pad_mask[:, None, None, :], -1e9)
        out = scores.softmax(-1) @ v
        return self.proj(out.transpose(1, 2).reshape(B, T, -1))


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = SelfAttention(d, 4)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, pad_mask):
        x = x + self.attn(self.ln1(x), pad_mask)
        return x + self.ff(self.ln2(x))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = nn.Parameter(torch.randn(1, SEQ, D) * 0.02)
        self.blocks = nn.ModuleList([Block(D) for _ in range(2)])
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, N_CLS)

    def forward(self, ids):
        pad_mask = ids == PAD
        x = self.tok(ids) + self.pos[:, : ids.shape[1]]
        for blk in self.blocks:
            x = blk(x, pad_mask)
        x = self.norm(x)
        keep = (~pad_mask).unsqueeze(-1).to(x.dtype)
        return self.head((x * keep).sum(1) / keep.sum(1))


def make_data(n):
    ids = torch.randint(1, VOCAB, (n, SEQ))
    lengths = torch.randint(5, SEQ + 1, (n,))
    ids[torch.arange(SEQ)[None, :] >= lengths[:, None]] = PAD
    y = (ids.sum(1) // 97) % N_CLS
    return ids, y


model = Encoder()
cfg = LoKrConfig(r=8, alpha=16, target_modules=["qkv", "proj", "ff.0", "ff.2"], modules_to_save=["head"])
model = get_peft_model(model, cfg)
model.print_trainable_parameters()

optim = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
train_ids, train_y = make_data(512)
for epoch in range(4):
    perm = torch.randperm(len(train_ids))
    for i in range(0, len(perm), 64):
        b = perm[i : i + 64]
        loss = F.cross_entropy(model(train_ids[b]), train_y[b])
        optim.zero_grad()
        loss.backward()
        optim.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

merged = model.merge_and_unload()
merged = merged.half().eval()

test_ids, test_y = make_data(128)
with torch.no_grad():
    logits = merged(test_ids)
    acc = (logits.argmax(-1) == test_y).float().mean().item()
    test_loss = F.cross_entropy(logits.float(), test_y).item()
print(f"merged fp16 model: loss {test_loss:.4f} acc {acc:.3f}")
