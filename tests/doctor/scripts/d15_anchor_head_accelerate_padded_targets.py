"""Anchor-based detector trained with accelerate (bf16 mixed precision on CPU). The collate
function pads the per-image box lists (float64 NumPy) to a fixed number of slots with a validity
mask so targets can be batched; every GT slot is matched to its best anchor and regressed with
(dx, dy, log dw, log dh) targets, the loss being masked by the validity mask."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, STRIDE, NC, MAX_OBJ = 96, 16, 2, 4
G = IMG // STRIDE
ANCHOR_WH = torch.tensor([[16.0, 16.0], [32.0, 24.0], [24.0, 40.0]])
NA = len(ANCHOR_WH)


def anchors_xyxy():
    c = (torch.arange(G) + 0.5) * STRIDE
    cy, cx = torch.meshgrid(c, c, indexing="ij")
    ctr = torch.stack([cx, cy], -1).reshape(-1, 1, 2).expand(-1, NA, 2)
    wh = ANCHOR_WH[None].expand(G * G, -1, -1)
    return torch.cat([ctr - wh / 2, ctr + wh / 2], -1).reshape(-1, 4)


ANCHORS = anchors_xyxy()


class Boxes(Dataset):
    def __init__(self, n):
        self.items = []
        for _ in range(n):
            img = rng.integers(0, 50, (IMG, IMG, 3)).astype(np.uint8)
            k = int(rng.integers(1, MAX_OBJ + 1))
            wh = rng.uniform(12, 44, (k, 2))
            xy = rng.uniform(0, IMG - wh)
            boxes = np.concatenate([xy, xy + wh], 1)
            labels = rng.integers(0, NC, k)
            for (x1, y1, x2, y2), c in zip(boxes.astype(int), labels):
                img[y1:y2, x1:x2, c] = 220
            self.items.append((img, boxes, labels))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    imgs = torch.stack([torch.from_numpy(b[0]).permute(2, 0, 1) for b in batch]).float() / 255.0
    boxes = np.zeros((len(batch), MAX_OBJ, 4))
    labels = np.zeros((len(batch), MAX_OBJ), dtype=np.int64)
    valid = np.zeros((len(batch), MAX_OBJ), dtype=bool)
    for i, (_, b, l) in enumerate(batch):
        boxes[i, :len(b)] = b
        labels[i, :len(l)] = l
        valid[i, :len(b)] = True
    return imgs, torch.from_numpy(boxes).float(), torch.from_numpy(labels), torch.from_numpy(valid)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.GroupNorm(4, 16), nn.SiLU(),
            nn.Conv2d(16, 32, 3, 2, 1), nn.GroupNorm(4, 32), nn.SiLU(),
            nn.Conv2d(32, 64, 3, 2, 1), nn.GroupNorm(8, 64), nn.SiLU(),
            nn.Conv2d(64, 64, 3, 2, 1), nn.GroupNorm(8, 64), nn.SiLU())
        self.out = nn.Conv2d(64, NA * (4 + 1 + NC), 1)

    def forward(self, x):
        p = self.out(self.body(x))
        return p.permute(0, 2, 3, 1).reshape(x.shape[0], G * G * NA, 4 + 1 + NC)


def pairwise_iou(a, b):
    lt = torch.max(a[..., :, None, :2], b[..., None, :, :2])
    rb = torch.min(a[..., :, None, 2:], b[..., None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area = lambda x: (x[..., 2] - x[..., 0]) * (x[..., 3] - x[..., 1])
    return inter / (area(a)[..., :, None] + area(b)[..., None, :] - inter + 1e-6)


def encode(gt, anc):
    gw, gh = gt[..., 2] - gt[..., 0], gt[..., 3] - gt[..., 1]
    aw, ah = anc[..., 2] - anc[..., 0], anc[..., 3] - anc[..., 1]
    dx = ((gt[..., 0] + gt[..., 2]) - (anc[..., 0] + anc[..., 2])) / 2 / aw
    dy = ((gt[..., 1] + gt[..., 3]) - (anc[..., 1] + anc[..., 3])) / 2 / ah
    return torch.stack([dx, dy, torch.log(gw / aw), torch.log(gh / ah)], -1)


def compute_loss(pred, boxes, labels, valid):
    pred = pred.float()
    b = pred.shape[0]
    ious = pairwise_iou(boxes, ANCHORS)                 # (B, MAX_OBJ, A)
    best = ious.argmax(-1)                              # (B, MAX_OBJ)
    bidx = torch.arange(b)[:, None].expand_as(best)
    matched_pred = pred[bidx, best]                     # (B, MAX_OBJ, 5+NC)
    reg_t = encode(boxes, ANCHORS[best])
    m = valid.float()
    l_box = (F.smooth_l1_loss(matched_pred[..., :4], reg_t, reduction="none").sum(-1) * m).sum() / m.sum()
    obj_t = torch.zeros(pred.shape[:2])
    obj_t[bidx[valid], best[valid]] = 1.0
    l_obj = F.binary_cross_entropy_with_logits(pred[..., 4], obj_t)
    l_cls = (F.cross_entropy(matched_pred[..., 5:].reshape(-1, NC), labels.reshape(-1), reduction="none")
             * m.reshape(-1)).sum() / m.sum()
    return l_box + l_obj + l_cls, (l_box, l_obj, l_cls)


def main():
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    model = Detector()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    dl = DataLoader(Boxes(64), batch_size=8, shuffle=True, collate_fn=collate)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for epoch in range(2):
        for step, (imgs, boxes, labels, valid) in enumerate(dl):
            pred = model(imgs)
            loss, (lb, lo, lc) = compute_loss(pred, boxes, labels, valid)
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
            accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f} box {lb.item():.4f} "
                              f"obj {lo.item():.4f} cls {lc.item():.4f}")


if __name__ == "__main__":
    main()
