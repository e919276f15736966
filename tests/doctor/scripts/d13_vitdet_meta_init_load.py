"""Evaluation script for a small ViTDet-like detector (hand-written patch embedding + transformer
encoder + per-patch box head). A 'pretrained' checkpoint is written first (stands in for the
training run); the evaluation side builds the model skeleton under accelerate's
init_empty_weights() so no memory is spent on random weights, then loads the checkpoint."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
from accelerate import init_empty_weights
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, P, D, NC = 64, 8, 64, 3


class ViTDetTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Linear(3 * P * P, D)
        self.pos_embed = nn.Parameter(torch.zeros(1, (IMG // P) ** 2, D))
        layer = nn.TransformerEncoderLayer(D, 4, 2 * D, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D)
        self.cls_head = nn.Linear(D, NC + 1)
        self.box_head = nn.Linear(D, 4)

    def forward(self, x):
        b = x.shape[0]
        patches = x.unfold(2, P, P).unfold(3, P, P)              # B,3,8,8,P,P
        patches = patches.permute(0, 2, 3, 1, 4, 5).reshape(b, -1, 3 * P * P)
        h = self.norm(self.blocks(self.patch_embed(patches) + self.pos_embed))
        return self.cls_head(h), self.box_head(h).sigmoid()


def make_val(n):
    imgs, boxes, labels = [], [], []
    for _ in range(n):
        img = rng.integers(0, 40, (IMG, IMG, 3)).astype(np.uint8)
        wh = rng.uniform(10, 30, 2)
        xy = rng.uniform(0, IMG - wh)
        c = int(rng.integers(0, NC))
        x1, y1 = xy.astype(int)
        x2, y2 = (xy + wh).astype(int)
        img[y1:y2, x1:x2, c] = 220
        imgs.append(img)
        boxes.append(np.array([x1, y1, x2, y2], dtype=np.float64) / IMG)
        labels.append(c)
    return np.stack(imgs), np.stack(boxes), np.array(labels)


def iou_np(a, b):
    lt = np.maximum(a[..., :2], b[..., :2])
    rb = np.minimum(a[..., 2:], b[..., 2:])
    inter = np.clip(rb - lt, 0, None).prod(-1)
    area = lambda x: (x[..., 2] - x[..., 0]) * (x[..., 3] - x[..., 1])
    return inter / (area(a) + area(b) - inter)


@torch.no_grad()
def evaluate(model, imgs, boxes, labels):
    model.eval()
    x = torch.from_numpy(imgs).permute(0, 3, 1, 2).float() / 255.0
    cls, box = model(x)
    prob = cls.softmax(-1)[..., :NC]
    score, cat = prob.max(-1)
    best = score.argmax(-1)
    pred_boxes = box[torch.arange(len(x)), best]               # cxcywh in [0,1]
    cxcy, wh = pred_boxes[:, :2], pred_boxes[:, 2:]
    xyxy = torch.cat([cxcy - wh / 2, cxcy + wh / 2], -1).numpy()
    pred_cls = cat[torch.arange(len(x)), best].numpy()
    ious = iou_np(xyxy, boxes)
    return float(((ious >= 0.5) & (pred_cls == labels)).mean()), float(ious.mean())


def main():
    with tempfile.TemporaryDirectory() as d:
        ckpt = os.path.join(d, "vitdet_tiny.safetensors")
        save_file(ViTDetTiny().state_dict(), ckpt)  # stands in for the trained checkpoint

        with init_empty_weights():
            model = ViTDetTiny()
        state = load_file(ckpt)
        result = model.load_state_dict(state, strict=True)
        print("load:", result)

        imgs, boxes, labels = make_val(16)
        acc, miou = evaluate(model, imgs, boxes, labels)
        print(f"AP50-ish accuracy {acc:.3f} mean IoU {miou:.3f}")


if __name__ == "__main__":
    main()
