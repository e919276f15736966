"""SSD-style detector (tiny VGG-ish backbone, two feature maps, default boxes, hard negative
mining) trained in pure fp16 (model.half()) with a static loss scale, the way apex-O2 style
recipes do it: scale the loss, backward, unscale the grads, step."""
import itertools
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, NC = 96, 3  # class 0 = background
FMAPS = [(12, 8), (6, 16)]  # (size, stride)
SCALES = [0.2, 0.45, 0.7]
LOSS_SCALE = 2.0 ** 16  # same starting value as GradScaler(init_scale=65536)


def default_boxes():
    out = []
    for k, (f, _) in enumerate(FMAPS):
        s, s_next = SCALES[k], SCALES[k + 1]
        for i, j in itertools.product(range(f), repeat=2):
            cx, cy = (j + 0.5) / f, (i + 0.5) / f
            out += [[cx, cy, s, s], [cx, cy, math.sqrt(s * s_next), math.sqrt(s * s_next)],
                    [cx, cy, s * math.sqrt(2), s / math.sqrt(2)], [cx, cy, s / math.sqrt(2), s * math.sqrt(2)]]
    return torch.tensor(out).clamp(0, 1)


DBOXES = default_boxes()
NA = 4


def cxcywh_to_xyxy(b):
    return torch.cat([b[:, :2] - b[:, 2:] / 2, b[:, :2] + b[:, 2:] / 2], -1)


def iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])
    return inter / (area(a)[:, None] + area(b)[None] - inter)


class SSDTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                                    nn.Conv2d(64, 64, 3, 2, 1), nn.ReLU())
        self.stage2 = nn.Sequential(nn.Conv2d(64, 64, 3, 2, 1), nn.ReLU())
        self.loc = nn.ModuleList([nn.Conv2d(64, NA * 4, 3, 1, 1) for _ in FMAPS])
        self.conf = nn.ModuleList([nn.Conv2d(64, NA * NC, 3, 1, 1) for _ in FMAPS])

    def forward(self, x):
        f1 = self.stage1(x)
        f2 = self.stage2(f1)
        b = x.shape[0]
        locs = [l(f).permute(0, 2, 3, 1).reshape(b, -1, 4) for l, f in zip(self.loc, (f1, f2))]
        confs = [c(f).permute(0, 2, 3, 1).reshape(b, -1, NC) for c, f in zip(self.conf, (f1, f2))]
        return torch.cat(locs, 1), torch.cat(confs, 1)


def match(gt_xyxy, gt_labels):
    ious = iou(cxcy := cxcywh_to_xyxy(DBOXES), gt_xyxy)
    best_gt, idx = ious.max(1)
    best_prior = ious.argmax(0)
    best_gt[best_prior] = 2.0
    idx[best_prior] = torch.arange(len(gt_xyxy))
    labels = gt_labels[idx].clone()
    labels[best_gt < 0.5] = 0
    g = gt_xyxy[idx]
    g_cxcy = (g[:, :2] + g[:, 2:]) / 2
    g_wh = g[:, 2:] - g[:, :2]
    loc_t = torch.cat([(g_cxcy - DBOXES[:, :2]) / (0.1 * DBOXES[:, 2:]), torch.log(g_wh / DBOXES[:, 2:]) / 0.2], -1)
    return loc_t, labels


def sample():
    img = rng.integers(0, 50, (IMG, IMG, 3)).astype(np.uint8)
    n = int(rng.integers(1, 4))
    wh = rng.uniform(16, 56, (n, 2))
    xy = rng.uniform(0, IMG - wh)
    boxes = np.concatenate([xy, xy + wh], 1)
    labels = rng.integers(1, NC, n)
    for (x1, y1, x2, y2), c in zip(boxes.astype(int), labels):
        img[y1:y2, x1:x2, c] = 230
    return img, boxes / IMG, labels


def multibox_loss(loc, conf, loc_t, conf_t):
    pos = conf_t > 0
    n_pos = pos.sum(1, keepdim=True)
    loss_loc = F.smooth_l1_loss(loc[pos], loc_t[pos].to(loc.dtype), reduction="sum")
    ce = F.cross_entropy(conf.reshape(-1, NC), conf_t.reshape(-1), reduction="none").view(conf_t.shape)
    ce_neg = ce.detach().clone()
    ce_neg[pos] = 0
    rank = ce_neg.argsort(1, descending=True).argsort(1)
    neg = rank < 3 * n_pos
    loss_conf = ce[pos | neg].sum()
    return (loss_loc + loss_conf) / n_pos.sum()


def main():
    model = SSDTiny().half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)
    data = [sample() for _ in range(32)]
    for step in range(12):
        batch = [data[i] for i in rng.choice(len(data), 8, replace=False)]
        imgs = torch.from_numpy(np.stack([b[0] for b in batch])).permute(0, 3, 1, 2).half() / 255
        targets = [match(torch.from_numpy(b[1]).float(), torch.from_numpy(b[2])) for b in batch]
        loc_t = torch.stack([t[0] for t in targets])
        conf_t = torch.stack([t[1] for t in targets])
        loc, conf = model(imgs)
        loss = multibox_loss(loc, conf, loc_t, conf_t)
        opt.zero_grad()
        (loss * LOSS_SCALE).backward()
        for p in model.parameters():
            p.grad.div_(LOSS_SCALE)
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
