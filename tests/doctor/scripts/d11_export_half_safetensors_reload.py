"""Train a tiny single-class YOLO-like detector in fp32, export a compact fp16 checkpoint with
safetensors for deployment, then reload it (assign=True to avoid a second copy of the weights)
and run the evaluation/NMS pass on the validation images."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, S = 96, 12  # 8x8 px cells


class YoloV1Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.LeakyReLU(0.1),
            nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1),
            nn.Conv2d(32, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1))
        self.head = nn.Conv2d(32, 5, 1)  # obj, x, y, w, h

    def forward(self, x):
        return self.head(self.backbone(x))


def sample():
    img = rng.integers(0, 40, (IMG, IMG, 3)).astype(np.uint8)
    wh = rng.uniform(12, 36, 2)
    xy = rng.uniform(0, IMG - wh)
    x1, y1 = xy.astype(int)
    x2, y2 = (xy + wh).astype(int)
    img[y1:y2, x1:x2] = 200
    return img, np.array([x1, y1, x2, y2], dtype=np.float32)


def targets_for(box):
    t = np.zeros((5, S, S), dtype=np.float32)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    cell = IMG / S
    i, j = int(cy // cell), int(cx // cell)
    t[:, i, j] = [1, cx / cell - j, cy / cell - i, (box[2] - box[0]) / IMG, (box[3] - box[1]) / IMG]
    return t


def nms(boxes, scores, thr=0.45):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel():
        i = order[0]
        keep.append(int(i))
        rest = order[1:]
        lt = torch.max(boxes[i, :2], boxes[rest, :2])
        rb = torch.min(boxes[i, 2:], boxes[rest, 2:])
        inter = (rb - lt).clamp(min=0).prod(-1)
        area = lambda b: (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
        iou = inter / (area(boxes[i]) + area(boxes[rest]) - inter)
        order = rest[iou <= thr]
    return keep


@torch.no_grad()
def evaluate(model, val):
    model.eval()
    ious = []
    for img, gt in val:
        x = torch.from_numpy(img).permute(2, 0, 1)[None].float() / 255.0
        out = model(x)[0].float()
        obj = out[0].sigmoid().flatten()
        cell = IMG / S
        jj, ii = torch.meshgrid(torch.arange(S), torch.arange(S), indexing="xy")
        cx = (jj.flatten() + out[1].sigmoid().flatten()) * cell
        cy = (ii.flatten() + out[2].sigmoid().flatten()) * cell
        w, h = out[3].sigmoid().flatten() * IMG, out[4].sigmoid().flatten() * IMG
        boxes = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)
        keep = nms(boxes, obj)
        b = boxes[keep[0]].numpy()
        g = gt
        iw = max(0.0, min(b[2], g[2]) - max(b[0], g[0]))
        ih = max(0.0, min(b[3], g[3]) - max(b[1], g[1]))
        inter = iw * ih
        ious.append(inter / ((b[2] - b[0]) * (b[3] - b[1]) + (g[2] - g[0]) * (g[3] - g[1]) - inter))
    return float(np.mean(ious))


def main():
    train = [sample() for _ in range(64)]
    val = [sample() for _ in range(8)]
    model = YoloV1Tiny()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(40):
        idx = rng.choice(len(train), 8, replace=False)
        x = torch.from_numpy(np.stack([train[i][0] for i in idx])).permute(0, 3, 1, 2).float() / 255.0
        t = torch.from_numpy(np.stack([targets_for(train[i][1]) for i in idx]))
        out = model(x)
        obj_mask = t[:, 0:1]
        l_obj = F.binary_cross_entropy_with_logits(out[:, 0], t[:, 0], pos_weight=torch.tensor(20.0))
        l_box = (F.mse_loss(out[:, 1:].sigmoid(), t[:, 1:], reduction="none") * obj_mask).sum() / obj_mask.sum()
        loss = l_obj + 5 * l_box
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    print(f"fp32 mean IoU on val: {evaluate(model, val):.3f}")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "yolo_tiny_fp16.safetensors")
        save_file({k: v.detach().half().contiguous() for k, v in model.state_dict().items()
                   if v.dtype.is_floating_point}, path)
        print(f"exported {os.path.getsize(path) / 1024:.1f} KiB")

        deployed = YoloV1Tiny()
        missing, unexpected = deployed.load_state_dict(load_file(path), strict=False, assign=True)
        print("missing", missing, "unexpected", unexpected)
        print(f"fp16 export mean IoU on val: {evaluate(deployed, val):.3f}")


if __name__ == "__main__":
    main()
