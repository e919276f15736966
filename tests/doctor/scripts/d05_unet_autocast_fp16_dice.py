"""Tiny U-Net-like binary segmentation model trained with CPU autocast (float16).
Mask logits are predicted at 1/4 resolution, upsampled with F.interpolate and trained with
BCE + a batch-level soft Dice loss."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
H = W = 192


def blob_masks(n):
    imgs = np.zeros((n, H, W, 3), dtype=np.uint8)
    masks = np.zeros((n, H, W), dtype=np.uint8)
    yy, xx = np.mgrid[:H, :W]
    for i in range(n):
        for _ in range(3):
            cy, cx = rng.uniform(40, 150, 2)
            r = rng.uniform(40, 70)
            m = (yy - cy) ** 2 + (xx - cx) ** 2 < r ** 2
            masks[i][m] = 1
        imgs[i] = rng.integers(0, 60, (H, W, 3), dtype=np.uint8)
        imgs[i][masks[i] == 1] += np.array([150, 80, 20], dtype=np.uint8)
    return imgs, masks


class SegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.enc3 = nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.lat = nn.Conv2d(32, 32, 1)
        self.mask_head = nn.Conv2d(32, 1, 1)

    def forward(self, x):
        f1 = self.enc1(x)
        f2 = self.enc2(f1)
        f3 = self.enc3(f2)
        f = self.lat(f2) + F.interpolate(f3, size=f2.shape[-2:], mode="nearest")
        return self.mask_head(f)  # (B,1,H/4,W/4)


def dice_loss(logits, targets, smooth=1.0):
    probs = logits.sigmoid()
    targets = targets.to(probs.dtype)
    inter = (probs * targets).sum()
    denom = probs.sum() + targets.sum()
    return 1 - (2 * inter + smooth) / (denom + smooth)


def main():
    imgs, masks = blob_masks(32)
    model = SegNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        perm = rng.permutation(len(imgs))
        for s in range(0, len(imgs), 8):
            idx = perm[s:s + 8]
            x = torch.from_numpy(imgs[idx]).permute(0, 3, 1, 2).float() / 255.0
            y = torch.from_numpy(masks[idx]).float()[:, None]
            with torch.autocast("cpu", dtype=torch.float16):
                low = model(x)
                logits = F.interpolate(low, size=(H, W), mode="bilinear", align_corners=False)
                loss = F.binary_cross_entropy_with_logits(logits.float(), y) + dice_loss(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                pred = (logits.float() > 0).float()
                iou = ((pred * y).sum() / ((pred + y) > 0).float().sum().clamp(min=1)).item()
            print(f"epoch {epoch} step {s // 8} loss {loss.item():.4f} iou {iou:.3f}")


if __name__ == "__main__":
    main()
