"""Tiny YOLO-style detector trained in pure fp16 (model.half()) with a hand-written GIoU box loss.

Boxes are decoded to pixel coordinates of the 320x320 letterboxed input and the GIoU loss
is computed directly on those pixel boxes.
"""
import math
import random

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)
random.seed(0)

IMG = 320
STRIDE = 32
GRID = IMG // STRIDE
ANCHORS = torch.tensor([[64.0, 64.0], [140.0, 120.0], [260.0, 230.0]])  # pixels
NUM_CLASSES = 3
DTYPE = torch.float16


def conv_bn(c_in, c_out, s):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, s, 1, bias=False), nn.BatchNorm2d(c_out), nn.SiLU())


class TinyYolo(nn.Module):
    def __init__(self, na=3, nc=NUM_CLASSES):
        super().__init__()
        self.na, self.nc = na, nc
        self.backbone = nn.Sequential(conv_bn(3, 8, 2), conv_bn(8, 16, 2), conv_bn(16, 32, 2),
                                      conv_bn(32, 48, 2), conv_bn(48, 64, 2), conv_bn(64, 64, 1))
        self.head = nn.Conv2d(64, na * (5 + nc), 1)

    def forward(self, x):
        f = self.backbone(x)
        b, _, h, w = f.shape
        p = self.head(f).view(b, self.na, 5 + self.nc, h, w).permute(0, 1, 3, 4, 2)
        return p  # (B, na, H, W, 5+nc)


def make_sample():
    img = np.random.randint(0, 255, (IMG, IMG, 3), dtype=np.uint8)
    n = random.randint(1, 3)
    boxes = []
    for _ in range(n):
        w, h = random.uniform(120, 300), random.uniform(120, 300)
        cx, cy = random.uniform(w / 2, IMG - w / 2), random.uniform(h / 2, IMG - h / 2)
        img[int(cy - h / 2):int(cy + h / 2), int(cx - w / 2):int(cx + w / 2)] //= 2
        boxes.append([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
    labels = np.random.randint(0, NUM_CLASSES, size=n)
    return img, np.array(boxes, dtype=np.float32), labels


def collate(batch):
    imgs = torch.stack([torch.from_numpy(b[0]).permute(2, 0, 1) for b in batch]).float() / 255.0
    targets = []
    for i, (_, boxes, labels) in enumerate(batch):
        for bx, lb in zip(boxes, labels):
            targets.append([i, lb, *bx])
    return imgs, torch.tensor(targets, dtype=torch.float32)


def build_targets(targets):
    """Assign each GT to the cell holding its centre and to its best-shape anchor."""
    bi = targets[:, 0].long()
    cls = targets[:, 1].long()
    xyxy = targets[:, 2:6]
    cxcy = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    wh = xyxy[:, 2:] - xyxy[:, :2]
    ratio = torch.max(wh[:, None] / ANCHORS[None], ANCHORS[None] / wh[:, None]).max(-1).values
    ai = ratio.argmin(1)
    gj = (cxcy[:, 1] / STRIDE).long().clamp(0, GRID - 1)
    gi = (cxcy[:, 0] / STRIDE).long().clamp(0, GRID - 1)
    return bi, ai, gj, gi, cls, xyxy


def decode(p, ai, gj, gi):
    anchors = ANCHORS.to(p.dtype)[ai]
    cx = (p[:, 0].sigmoid() * 2 - 0.5 + gi.to(p.dtype)) * STRIDE
    cy = (p[:, 1].sigmoid() * 2 - 0.5 + gj.to(p.dtype)) * STRIDE
    w = (p[:, 2].sigmoid() * 2) ** 2 * anchors[:, 0]
    h = (p[:, 3].sigmoid() * 2) ** 2 * anchors[:, 1]
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)


def giou_loss(pred, gt, eps=1e-7):
    px1, py1, px2, py2 = pred.unbind(-1)
    gx1, gy1, gx2, gy2 = gt.unbind(-1)
    area_p = (px2 - px1) * (py2 - py1)
    area_g = (gx2 - gx1) * (gy2 - gy1)
    iw = (torch.min(px2, gx2) - torch.max(px1, gx1)).clamp(min=0)
    ih = (torch.min(py2, gy2) - torch.max(py1, gy1)).clamp(min=0)
    inter = iw * ih
    union = area_p + area_g - inter + eps
    iou = inter / union
    cw = torch.max(px2, gx2) - torch.min(px1, gx1)
    ch = torch.max(py2, gy2) - torch.min(py1, gy1)
    c_area = cw * ch + eps
    giou = iou - (c_area - union) / c_area
    return (1 - giou).mean(), iou


def main():
    model = TinyYolo().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True)
    bce = nn.BCEWithLogitsLoss()
    data = [make_sample() for _ in range(32)]
    for epoch in range(2):
        random.shuffle(data)
        for step in range(0, len(data), 8):
            imgs, targets = collate(data[step:step + 8])
            imgs = imgs.to(DTYPE)
            targets = targets.to(DTYPE)
            p = model(imgs)
            bi, ai, gj, gi, cls, gt_xyxy = build_targets(targets.float())
            ps = p[bi, ai, gj, gi]
            pbox = decode(ps, ai, gj, gi)
            lbox, iou = giou_loss(pbox, gt_xyxy.to(DTYPE))
            tobj = torch.zeros_like(p[..., 4])
            tobj[bi, ai, gj, gi] = iou.detach().clamp(0).to(tobj.dtype)
            lobj = bce(p[..., 4], tobj)
            tcls = torch.zeros_like(ps[:, 5:])
            tcls[torch.arange(len(cls)), cls] = 1.0
            lcls = bce(ps[:, 5:], tcls)
            loss = 0.05 * lbox + 1.0 * lobj + 0.5 * lcls
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            opt.step()
            print(f"epoch {epoch} step {step // 8} loss {loss.item():.4f} box {lbox.item():.4f} "
                  f"obj {lobj.item():.4f} cls {lcls.item():.4f}")
    print("done")


if __name__ == "__main__":
    main()
