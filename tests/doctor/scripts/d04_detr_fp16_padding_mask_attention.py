"""DETR-style detector with a hand-written transformer encoder. Images of different sizes are
padded in the collate function and a key-padding mask is passed to the attention. The whole model
is cast to fp16 with .half() for a faster fine-tune."""
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
NC, NQ, D = 3, 6, 64


class MHA(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, key_padding_mask=None):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / (d // self.h) ** 0.5
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], -1e9)
        attn = scores.softmax(-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, d))


class EncoderLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = MHA(d, 4)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x, mask):
        x = self.ln1(x + self.attn(x, mask))
        return self.ln2(x + self.ff(x))


class Detr(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
                                      nn.Conv2d(32, D, 3, 2, 1), nn.BatchNorm2d(D), nn.ReLU(),
                                      nn.Conv2d(D, D, 3, 2, 1))
        self.encoder = nn.ModuleList([EncoderLayer(D) for _ in range(2)])
        self.query = nn.Parameter(torch.randn(NQ, D) * 0.1)
        self.cross = nn.MultiheadAttention(D, 4, batch_first=True)
        self.cls_head = nn.Linear(D, NC + 1)
        self.box_head = nn.Linear(D, 4)

    def forward(self, images, pixel_mask):
        f = self.backbone(images)
        b, d, h, w = f.shape
        mask = F.interpolate(pixel_mask[:, None].float(), size=(h, w))[:, 0].bool()  # True = padding
        x = f.flatten(2).transpose(1, 2)
        m = mask.flatten(1)
        for layer in self.encoder:
            x = layer(x, m)
        q = self.query[None].expand(b, -1, -1)
        hs, _ = self.cross(q, x, x, key_padding_mask=m)
        return self.cls_head(hs), self.box_head(hs).sigmoid()


def make_sample():
    h, w = random.choice([48, 64, 80]), random.choice([48, 64, 80])
    img = np.random.randint(0, 256, (h, w, 3), dtype=np.uint8)
    n = random.randint(1, 3)
    boxes = np.random.uniform(0.2, 0.6, (n, 4))
    boxes[:, 2:] = np.random.uniform(0.1, 0.3, (n, 2))
    return img, boxes, np.random.randint(0, NC, n)


def collate(batch):
    H = max(b[0].shape[0] for b in batch)
    W = max(b[0].shape[1] for b in batch)
    imgs = torch.zeros(len(batch), 3, H, W)
    mask = torch.ones(len(batch), H, W, dtype=torch.bool)
    targets = []
    for i, (img, boxes, labels) in enumerate(batch):
        h, w = img.shape[:2]
        imgs[i, :, :h, :w] = torch.from_numpy(img).permute(2, 0, 1).float() / 255
        mask[i, :h, :w] = False
        targets.append({"boxes": torch.tensor(boxes, dtype=torch.float32), "labels": torch.tensor(labels)})
    return imgs, mask, targets


def greedy_match(logits, boxes, targets):
    """Cheap matcher: for each GT take the unused query with lowest L1 + class cost."""
    out = []
    for b, t in enumerate(targets):
        cost = torch.cdist(boxes[b].float(), t["boxes"], p=1) - logits[b].float().softmax(-1)[:, t["labels"]]
        used, pairs = set(), []
        for j in range(len(t["labels"])):
            order = cost[:, j].argsort()
            i = next(int(k) for k in order if int(k) not in used)
            used.add(i)
            pairs.append((i, j))
        out.append(pairs)
    return out


def main():
    model = Detr().half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    data = [make_sample() for _ in range(24)]
    for epoch in range(2):
        for s in range(0, len(data), 4):
            imgs, mask, targets = collate(data[s:s + 4])
            logits, boxes = model(imgs.half(), mask)
            matches = greedy_match(logits, boxes, targets)
            tgt_cls = torch.full(logits.shape[:2], NC, dtype=torch.long)
            l_box = 0
            for b, pairs in enumerate(matches):
                for i, j in pairs:
                    tgt_cls[b, i] = targets[b]["labels"][j]
                    l_box = l_box + F.l1_loss(boxes[b, i].float(), targets[b]["boxes"][j])
            loss = F.cross_entropy(logits.float().flatten(0, 1), tgt_cls.flatten()) + l_box
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(f"epoch {epoch} step {s // 4} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
