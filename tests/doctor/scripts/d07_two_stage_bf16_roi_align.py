"""Two-stage detector (Faster R-CNN style second stage) with a hand-written RoIAlign built on
F.grid_sample. The detector is cast to bfloat16; proposals come from the dataset as NumPy arrays
(jittered GT boxes) and are collated per image."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, NC, POOL, STRIDE = 96, 3, 7, 8


def roi_align(features, rois, output_size=POOL, spatial_scale=1.0 / STRIDE, sampling=2):
    """features (B,C,H,W); rois (K,5) = [batch_idx, x1, y1, x2, y2] in image pixels."""
    B, C, H, W = features.shape
    out = []
    n = output_size * sampling
    steps = (torch.arange(n, dtype=rois.dtype) + 0.5) / n
    for r in rois:
        b = int(r[0])
        x1, y1, x2, y2 = r[1:] * spatial_scale
        xs = x1 + (x2 - x1) * steps
        ys = y1 + (y2 - y1) * steps
        gx = xs / (W - 1) * 2 - 1
        gy = ys / (H - 1) * 2 - 1
        grid = torch.stack(torch.meshgrid(gy, gx, indexing="ij")[::-1], -1)[None]
        s = F.grid_sample(features[b:b + 1], grid, mode="bilinear", align_corners=True)
        out.append(F.avg_pool2d(s, sampling))
    return torch.cat(out)


class TwoStage(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU())
        self.box_head = nn.Sequential(nn.Flatten(), nn.Linear(64 * POOL * POOL, 128), nn.ReLU())
        self.cls_score = nn.Linear(128, NC + 1)
        self.bbox_pred = nn.Linear(128, 4 * (NC + 1))

    def forward(self, images, rois):
        feats = self.backbone(images)
        x = self.box_head(roi_align(feats, rois))
        return self.cls_score(x), self.bbox_pred(x)


def make_item():
    img = rng.integers(0, 50, (IMG, IMG, 3), dtype=np.uint8)
    n = int(rng.integers(1, 4))
    wh = rng.uniform(20, 50, (n, 2))
    xy = rng.uniform(0, IMG - wh)
    boxes = np.concatenate([xy, xy + wh], 1)
    labels = rng.integers(1, NC + 1, n)
    for (x1, y1, x2, y2), c in zip(boxes.astype(int), labels):
        img[y1:y2, x1:x2, c - 1] = 230
    props = np.repeat(boxes, 4, 0) + rng.normal(0, 4, (4 * n, 4))
    props = np.clip(props, 0, IMG - 1)
    return img, boxes, labels, props


def collate(batch):
    imgs = torch.stack([torch.from_numpy(b[0]).permute(2, 0, 1) for b in batch]).float() / 255.0
    rois, gts, labs = [], [], []
    for i, (_, boxes, labels, props) in enumerate(batch):
        rois.append(np.concatenate([np.full((len(props), 1), i), props], 1))
        gts.append(np.repeat(boxes, 4, 0))
        labs.append(np.repeat(labels, 4))
    return imgs, torch.from_numpy(np.concatenate(rois)), torch.from_numpy(np.concatenate(gts)), \
        torch.from_numpy(np.concatenate(labs))


def encode(props, gt):
    pw, ph = props[:, 2] - props[:, 0], props[:, 3] - props[:, 1]
    gw, gh = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    return torch.stack([((gt[:, 0] + gt[:, 2]) - (props[:, 0] + props[:, 2])) / 2 / pw,
                        ((gt[:, 1] + gt[:, 3]) - (props[:, 1] + props[:, 3])) / 2 / ph,
                        torch.log(gw / pw), torch.log(gh / ph)], -1)


def main():
    model = TwoStage().to(torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    data = [make_item() for _ in range(24)]
    for epoch in range(2):
        for s in range(0, len(data), 4):
            imgs, rois, gt, labels = collate(data[s:s + 4])
            cls, deltas = model(imgs.to(torch.bfloat16), rois)
            l_cls = F.cross_entropy(cls.float(), labels)
            deltas = deltas.view(len(labels), NC + 1, 4)[torch.arange(len(labels)), labels]
            l_box = F.smooth_l1_loss(deltas.float(), encode(rois[:, 1:], gt).float(), beta=1 / 9)
            loss = l_cls + l_box
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(f"epoch {epoch} step {s // 4} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
