import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(3)
N_CONCEPTS, VOCAB, PAD = 40, 64, 0
PROTOS = rng.integers(0, 256, size=(N_CONCEPTS, 16, 16, 3), dtype=np.uint8)
WORDS = rng.integers(1, VOCAB, size=(N_CONCEPTS, 6))


class PairDataset(Dataset):
    """Synthetic image/caption pairs: each concept has a prototype image and a few caption words."""

    def __init__(self, n):
        self.protos, self.words = PROTOS, WORDS
        self.concept = rng.integers(0, N_CONCEPTS, n)

    def __len__(self):
        return len(self.concept)

    def __getitem__(self, i):
        c = self.concept[i]
        noise = rng.integers(-20, 21, size=self.protos[c].shape)
        img = np.clip(self.protos[c].astype(np.int16) + noise, 0, 255).astype(np.uint8)
        length = rng.integers(2, 7)
        caption = rng.permutation(self.words[c])[:length]
        return img, caption, c


def collate(batch):
    imgs, caps, concepts = zip(*batch)
    imgs = torch.from_numpy(np.stack(imgs)).permute(0, 3, 1, 2).float().div_(255.0)
    lengths = torch.tensor([len(c) for c in caps])
    tokens = torch.full((len(caps), int(lengths.max())), PAD, dtype=torch.long)
    for i, c in enumerate(caps):
        tokens[i, :len(c)] = torch.from_numpy(c)
    mask = torch.arange(tokens.shape[1])[None, :] < lengths[:, None]
    return imgs, tokens, mask, torch.tensor(concepts)


class ImageEncoder(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.29, 0.29, 0.29]).view(1, 3, 1, 1))
        self.conv = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.GELU(), nn.Conv2d(32, 64, 3, 2, 1), nn.GELU())
        self.proj = nn.Linear(64, dim)

    def forward(self, x):
        x = (x - self.mean) / self.std
        return self.proj(self.conv(x).mean((2, 3)))


class TextEncoder(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 64, padding_idx=PAD)
        self.proj = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, dim))

    def forward(self, tokens, mask):
        m = mask.unsqueeze(-1).to(self.emb.weight.dtype)
        pooled = (self.emb(tokens) * m).sum(1) / m.sum(1).clamp_min(1.0)
        return self.proj(pooled)


img_enc, txt_enc = ImageEncoder(), TextEncoder()
logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))
params = list(img_enc.parameters()) + list(txt_enc.parameters()) + [logit_scale]
opt = torch.optim.AdamW(params, lr=2e-3, weight_decay=0.01)
train_dl = DataLoader(PairDataset(2048), batch_size=64, shuffle=True, collate_fn=collate)
val_dl = DataLoader(PairDataset(512), batch_size=512, collate_fn=collate)

for epoch in range(4):
    for imgs, tokens, mask, _ in train_dl:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            zi, zt = img_enc(imgs), txt_enc(tokens, mask)
        zi, zt = F.normalize(zi.float(), dim=-1), F.normalize(zt.float(), dim=-1)
        logits = logit_scale.clamp(max=math.log(100)).exp() * zi @ zt.t()
        target = torch.arange(len(zi))
        loss = 0.5 * (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target))
        opt.zero_grad()
        loss.backward()
        opt.step()

    with torch.no_grad():
        imgs, tokens, mask, concepts = next(iter(val_dl))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            zi, zt = img_enc(imgs), txt_enc(tokens, mask)
        sim = (F.normalize(zi.float(), dim=-1) @ F.normalize(zt.float(), dim=-1).t()).numpy()
    c = concepts.numpy()
    top5 = np.argsort(-sim, axis=1)[:, :5]
    hit1 = (c[top5[:, 0]] == c).mean()
    hit5 = (c[top5] == c[:, None]).any(1).mean()
    print(f"epoch {epoch} loss {loss.item():.4f} i2t R@1 {hit1:.3f} R@5 {hit5:.3f} scale {logit_scale.exp().item():.1f}")
