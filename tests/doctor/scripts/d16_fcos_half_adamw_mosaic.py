"""FCOS-style anchor-free detector (ltrb distance regression) fine-tuned in pure fp16: the model is
converted with .half() to halve memory, losses are computed in fp32 on the upcast outputs, AdamW.
Mosaic + horizontal-flip augmentation on uint8 NumPy images, hand-written NMS and a NumPy mAP@0.5."""
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)
IMG, STRIDE, NC = 128, 8, 2
GRID = IMG // STRIDE


def synth_image(size=IMG):
    img = np.full((size, size, 3), 40, dtype=np.uint8)
    boxes, labels = [], []
    for _ in range(random.randint(1, 3)):
        w, h = random.randint(16, 48), random.randint(16, 48)
        x1, y1 = random.randint(0, size - w), random.randint(0, size - h)
        c = random.randint(0, NC - 1)
        img[y1:y1 + h, x1:x1 + w] = (220, 60, 60) if c == 0 else (60, 60, 220)
        boxes.append([x1, y1, x1 + w, y1 + h])
        labels.append(c)
    return img, np.array(boxes, dtype=np.float64), np.array(labels, dtype=np.int64)


def mosaic(samples):
    """4 images -> one IMG x IMG canvas, each quadrant a half-size copy."""
    canvas = np.zeros((IMG, IMG, 3), dtype=np.uint8)
    half = IMG // 2
    all_boxes, all_labels = [], []
    for k, (img, boxes, labels) in enumerate(samples):
        small = img[::2, ::2]
        ox, oy = (k % 2) * half, (k // 2) * half
        canvas[oy:oy + half, ox:ox + half] = small
        all_boxes.append(boxes / 2 + np.array([ox, oy, ox, oy]))
        all_labels.append(labels)
    return canvas, np.concatenate(all_boxes), np.concatenate(all_labels)


def hflip(img, boxes):
    img = img[:, ::-1].copy()
    boxes = boxes.copy()
    boxes[:, [0, 2]] = IMG - boxes[:, [2, 0]]
    return img, boxes


def collate(batch):
    imgs = torch.stack([torch.from_numpy(np.ascontiguousarray(b[0])).permute(2, 0, 1) for b in batch])
    imgs = imgs.float().div_(255.0)
    targets = [{"boxes": torch.from_numpy(b[1]).float(), "labels": torch.from_numpy(b[2])} for b in batch]
    return imgs, targets


class FCOSLite(nn.Module):
    def __init__(self):
        super().__init__()
        def cb(i, o, s):
            return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.SiLU())
        self.backbone = nn.Sequential(cb(3, 16, 2), cb(16, 32, 2), cb(32, 48, 2), cb(48, 48, 1))
        self.cls = nn.Conv2d(48, NC, 1)
        self.reg = nn.Conv2d(48, 4, 1)  # ltrb distances in stride units (log-space)
        nn.init.constant_(self.cls.bias, -4.0)

    def forward(self, x):
        f = self.backbone(x)
        return self.cls(f), self.reg(f)


def grid_points():
    ys, xs = torch.meshgrid(torch.arange(GRID), torch.arange(GRID), indexing="ij")
    return torch.stack([xs, ys], -1).reshape(-1, 2).float() * STRIDE + STRIDE / 2


POINTS = grid_points()


def assign(targets):
    cls_t = torch.zeros(len(targets), GRID * GRID, NC)
    reg_t = torch.zeros(len(targets), GRID * GRID, 4)
    pos = torch.zeros(len(targets), GRID * GRID, dtype=torch.bool)
    for b, t in enumerate(targets):
        for box, lab in zip(t["boxes"], t["labels"]):
            inside = (POINTS[:, 0] > box[0]) & (POINTS[:, 0] < box[2]) & (POINTS[:, 1] > box[1]) & (POINTS[:, 1] < box[3])
            cls_t[b, inside, lab] = 1.0
            ltrb = torch.stack([POINTS[:, 0] - box[0], POINTS[:, 1] - box[1], box[2] - POINTS[:, 0], box[3] - POINTS[:, 1]], -1)
            reg_t[b, inside] = ltrb[inside] / STRIDE
            pos[b, inside] = True
    return cls_t, reg_t, pos


def decode(reg):
    ltrb = torch.exp(reg.float().clamp(max=6.0)) * STRIDE
    return torch.cat([POINTS - ltrb[..., :2], POINTS + ltrb[..., 2:]], -1)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    return inter / (area_a[:, None] + area_b[None] - inter + 1e-6)


def nms(boxes, scores, thr=0.5):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i][None], boxes[order[1:]])[0]
        order = order[1:][ious <= thr]
    return torch.tensor(keep, dtype=torch.int64)


def ap_voc(tp, conf, n_gt):
    if n_gt == 0:
        return 0.0
    order = np.argsort(-conf)
    tp = np.asarray(tp, dtype=np.float64)[order]
    ctp = np.cumsum(tp)
    cfp = np.cumsum(1 - tp)
    recall = ctp / n_gt
    precision = ctp / np.maximum(ctp + cfp, 1e-9)
    mrec = np.concatenate([[0.0], recall, [1.0]])
    mpre = np.concatenate([[1.0], precision, [0.0]])
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    idx = np.where(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1]))


@torch.no_grad()
def evaluate(model, data):
    model.eval()
    per_class = {c: ([], [], 0) for c in range(NC)}
    for img, gt_boxes, gt_labels in data:
        x, _ = collate([(img, gt_boxes, gt_labels)])
        cls, reg = model(x.half())
        scores = cls.float().sigmoid().flatten(2).transpose(1, 2)[0]
        boxes = decode(reg.flatten(2).transpose(1, 2)[0]).clamp(0, IMG)
        for c in range(NC):
            s = scores[:, c]
            m = s > 0.05
            b, s = boxes[m], s[m]
            tps, confs, n = per_class[c]
            g = torch.from_numpy(gt_boxes[gt_labels == c]).float()
            n += len(g)
            if len(b):
                keep = nms(b, s)
                b, s = b[keep], s[keep]
                matched = set()
                ious = box_iou(b, g) if len(g) else torch.zeros(len(b), 0)
                for k in range(len(b)):
                    j = int(ious[k].argmax()) if ious.shape[1] else -1
                    ok = j >= 0 and ious[k, j] >= 0.5 and j not in matched
                    if ok:
                        matched.add(j)
                    tps.append(1.0 if ok else 0.0)
                    confs.append(float(s[k]))
            per_class[c] = (tps, confs, n)
    aps = [ap_voc(np.array(t), np.array(cf), n) for t, cf, n in per_class.values()]
    model.train()
    return float(np.mean(aps))


def main():
    base = [synth_image() for _ in range(48)]
    val = [synth_image() for _ in range(8)]
    model = FCOSLite().half()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    for step in range(20):
        batch = []
        for _ in range(4):
            img, boxes, labels = mosaic(random.sample(base, 4)) if random.random() < 0.5 else random.choice(base)
            if random.random() < 0.5:
                img, boxes = hflip(img, boxes)
            batch.append((img, boxes, labels))
        imgs, targets = collate(batch)
        cls_t, reg_t, pos = assign(targets)
        cls, reg = model(imgs.half())
        cls = cls.float().flatten(2).transpose(1, 2)
        reg = reg.float().flatten(2).transpose(1, 2)
        num_pos = max(pos.sum().item(), 1)
        p = cls.sigmoid()
        ce = F.binary_cross_entropy_with_logits(cls, cls_t, reduction="none")
        p_t = p * cls_t + (1 - p) * (1 - cls_t)
        alpha_t = 0.25 * cls_t + 0.75 * (1 - cls_t)
        l_cls = (alpha_t * (1 - p_t) ** 2 * ce).sum() / num_pos
        l_reg = F.smooth_l1_loss(reg[pos], torch.log(reg_t[pos].clamp(min=1e-3)), reduction="sum") / num_pos
        loss = l_cls + l_reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f} cls {l_cls.item():.4f} reg {l_reg.item():.4f}")
    print(f"val mAP@0.5 {evaluate(model, val):.4f}")


if __name__ == "__main__":
    main()
