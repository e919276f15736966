"""RetinaNet-style single-stage detector (tiny CNN + FPN level, anchors, hand-written focal loss)
trained with CPU autocast in bf16 and an exponential moving average (EMA) copy of the detector
used for evaluation."""
import copy
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, STRIDE, NC = 96, 8, 2
SIZES, RATIOS = (16.0, 32.0), (0.5, 1.0, 2.0)


def make_anchors():
    base = []
    for s in SIZES:
        for r in RATIOS:
            w, h = s * math.sqrt(1 / r), s * math.sqrt(r)
            base.append([-w / 2, -h / 2, w / 2, h / 2])
    base = torch.tensor(base)
    g = IMG // STRIDE
    sx = (torch.arange(g) + 0.5) * STRIDE
    cy, cx = torch.meshgrid(sx, sx, indexing="ij")
    shifts = torch.stack([cx, cy, cx, cy], -1).reshape(-1, 1, 4)
    return (shifts + base[None]).reshape(-1, 4)


ANCHORS = make_anchors()
A = len(SIZES) * len(RATIOS)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    return inter / (area_a[:, None] + area_b[None] - inter)


def encode(anchors, gt):
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    ax, ay = anchors[:, 0] + aw / 2, anchors[:, 1] + ah / 2
    gw, gh = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    gx, gy = gt[:, 0] + gw / 2, gt[:, 1] + gh / 2
    return torch.stack([(gx - ax) / aw, (gy - ay) / ah, torch.log(gw / aw), torch.log(gh / ah)], -1)


class RetinaTiny(nn.Module):
    def __init__(self):
        super().__init__()
        def cbr(i, o, s):
            return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU())
        self.backbone = nn.Sequential(cbr(3, 16, 2), cbr(16, 32, 2), cbr(32, 64, 2))
        self.cls_tower = nn.Sequential(cbr(64, 64, 1), nn.Conv2d(64, A * NC, 3, 1, 1))
        self.box_tower = nn.Sequential(cbr(64, 64, 1), nn.Conv2d(64, A * 4, 3, 1, 1))
        nn.init.constant_(self.cls_tower[-1].bias, -math.log((1 - 0.01) / 0.01))

    def forward(self, x):
        f = self.backbone(x)
        b = x.shape[0]
        cls = self.cls_tower(f).permute(0, 2, 3, 1).reshape(b, -1, NC)
        box = self.box_tower(f).permute(0, 2, 3, 1).reshape(b, -1, 4)
        return cls, box


class ModelEMA:
    def __init__(self, model, decay=0.999):
        self.ema = copy.deepcopy(model).eval()
        for p in self.ema.parameters():
            p.requires_grad_(False)
        self.decay = decay
        self.updates = 0

    @torch.no_grad()
    def update(self, model):
        self.updates += 1
        d = self.decay * (1 - math.exp(-self.updates / 200))
        msd = model.state_dict()
        for k, v in self.ema.state_dict().items():
            v.mul_(d).add_(msd[k].detach(), alpha=1 - d)


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    p = logits.sigmoid()
    ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    a_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (a_t * (1 - p_t) ** gamma * ce).sum()


def sample():
    img = rng.integers(0, 40, (IMG, IMG, 3)).astype(np.uint8)
    n = int(rng.integers(1, 4))
    wh = rng.uniform(14, 40, (n, 2))
    xy = rng.uniform(0, IMG - wh)
    boxes = np.concatenate([xy, xy + wh], 1)
    labels = rng.integers(0, NC, n)
    for (x1, y1, x2, y2), c in zip(boxes.astype(int), labels):
        img[y1:y2, x1:x2, c] = 220
    return img, boxes, labels


def main():
    model = RetinaTiny()
    ema = ModelEMA(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    data = [sample() for _ in range(32)]
    for step in range(16):
        batch = [data[i] for i in rng.choice(len(data), 4, replace=False)]
        imgs = torch.stack([torch.from_numpy(b[0]).permute(2, 0, 1) for b in batch]).float() / 255.0
        with torch.autocast("cpu", dtype=torch.bfloat16):
            cls, box = model(imgs)
        cls, box = cls.float(), box.float()
        l_cls, l_box, npos = 0.0, 0.0, 0
        for i, (_, gt, lab) in enumerate(batch):
            gt = torch.from_numpy(gt).float()
            iou = box_iou(ANCHORS, gt)
            best, idx = iou.max(1)
            pos, neg = best >= 0.5, best < 0.4
            t = torch.zeros(len(ANCHORS), NC)
            t[pos, torch.from_numpy(lab)[idx[pos]]] = 1.0
            valid = pos | neg
            l_cls = l_cls + focal_loss(cls[i][valid], t[valid])
            if pos.any():
                l_box = l_box + F.smooth_l1_loss(box[i][pos], encode(ANCHORS[pos], gt[idx[pos]]), beta=0.1, reduction="sum")
            npos += int(pos.sum())
        loss = (l_cls + l_box) / max(npos, 1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update(model)
        print(f"step {step} loss {loss.item():.4f} pos {npos}")


if __name__ == "__main__":
    main()
