"""Masked-frame prediction pretraining (wav2vec-style) on synthetic feature sequences, bf16 weights."""
from dataclasses import dataclass
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class Cfg:
    feat_dim: int = 40
    hidden: int = 64
    layers: int = 2
    mask_prob: float = 0.3
    steps: int = 4
    dtype: torch.dtype = torch.bfloat16


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class FramePretrainer(nn.Module):
    def __init__(self, cfg: Cfg):
        super().__init__()
        self.proj = nn.Linear(cfg.feat_dim, cfg.hidden)
        # learned-looking "mask embedding" used to replace masked frames
        self.mask_emb = torch.empty(cfg.hidden).uniform_(-0.02, 0.02)
        self.encoder = nn.Sequential(*[Block(cfg.hidden) for _ in range(cfg.layers)])
        self.out = nn.Linear(cfg.hidden, cfg.feat_dim)

    def forward(self, feats, mask):
        h = self.proj(feats)
        h = torch.where(mask.unsqueeze(-1), self.mask_emb, h)
        h = self.encoder(h)
        return self.out(h)


cfg = Cfg()
model = FramePretrainer(cfg).to(cfg.dtype)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

for step in range(cfg.steps):
    feats = torch.randn(8, 50, cfg.feat_dim).to(cfg.dtype)
    mask = torch.rand(8, 50) < cfg.mask_prob
    pred = model(feats, mask)
    loss = F.l1_loss(pred[mask].float(), feats[mask].float())
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
