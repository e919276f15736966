"""CenterNet-style keypoint detector (object centres as heatmap peaks + size regression).
The model is converted to fp16 with .half() and trained with a GradScaler; gradients are
unscaled before clipping."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, DOWN, NC = 128, 4, 3
OUT = IMG // DOWN
device = "cuda" if torch.cuda.is_available() else "cpu"


class CenterNetTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.hm = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1), nn.ReLU(), nn.Conv2d(32, NC, 1))
        self.wh = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1), nn.ReLU(), nn.Conv2d(32, 2, 1))
        self.hm[-1].bias.data.fill_(-2.19)

    def forward(self, x):
        f = self.backbone(x)
        return self.hm(f), self.wh(f)


def gaussian_targets(boxes, labels):
    hm = np.zeros((NC, OUT, OUT), dtype=np.float32)
    wh = np.zeros((2, OUT, OUT), dtype=np.float32)
    mask = np.zeros((OUT, OUT), dtype=np.float32)
    yy, xx = np.mgrid[:OUT, :OUT]
    for (x1, y1, x2, y2), c in zip(boxes / DOWN, labels):
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        sigma = max((x2 - x1), (y2 - y1)) / 6
        hm[c] = np.maximum(hm[c], np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma ** 2)))
        ix, iy = int(cx), int(cy)
        hm[c, iy, ix] = 1.0
        wh[:, iy, ix] = (x2 - x1, y2 - y1)
        mask[iy, ix] = 1
    return hm, wh, mask


def sample():
    img = rng.integers(0, 50, (IMG, IMG, 3)).astype(np.uint8)
    n = int(rng.integers(1, 4))
    wh = rng.uniform(16, 48, (n, 2))
    xy = rng.uniform(0, IMG - wh)
    boxes = np.concatenate([xy, xy + wh], 1)
    labels = rng.integers(0, NC, n)
    for (x1, y1, x2, y2), c in zip(boxes.astype(int), labels):
        img[y1:y2, x1:x2, c] = 210
    return (img, *gaussian_targets(boxes, labels))


def neg_loss(pred_logits, gt):
    pred = pred_logits.float().sigmoid().clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred ** 2 * (1 - gt) ** 4 * neg
    num_pos = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / num_pos


def main():
    model = CenterNetTiny().to(device).half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)
    scaler = torch.amp.GradScaler(device, init_scale=512.0)  # mmdet-style fp16 loss scale
    data = [sample() for _ in range(32)]
    for step in range(12):
        batch = [data[i] for i in rng.choice(len(data), 8, replace=False)]
        img = torch.from_numpy(np.stack([b[0] for b in batch])).permute(0, 3, 1, 2).to(device).half() / 255
        hm_t, wh_t, mask = (torch.from_numpy(np.stack([b[k] for b in batch])).to(device) for k in (1, 2, 3))
        hm, wh = model(img)
        l_hm = neg_loss(hm, hm_t)
        l_wh = (F.l1_loss(wh.float(), wh_t, reduction="none") * mask[:, None]).sum() / mask.sum().clamp(min=1)
        loss = l_hm + 0.1 * l_wh
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 35.0)
        scaler.step(opt)
        scaler.update()
        print(f"step {step} loss {loss.item():.4f} hm {l_hm.item():.4f} wh {l_wh.item():.4f}")


if __name__ == "__main__":
    main()
