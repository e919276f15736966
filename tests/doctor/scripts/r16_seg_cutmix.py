import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
np.random.seed(0)
N_CLASSES, IGNORE = 3, 255
MEAN = torch.tensor([0.45, 0.45, 0.45]).view(1, 3, 1, 1)
STD = torch.tensor([0.25, 0.25, 0.25]).view(1, 3, 1, 1)


class ShapesSeg(Dataset):
    """48x48 RGB scenes with a disc (class 1) and a box (class 2); object borders are unlabeled."""

    def __init__(self, n, seed):
        self.n, self.seed = n, seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        r = np.random.default_rng(self.seed * 100003 + i)
        img = r.integers(60, 120, size=(48, 48, 3)).astype(np.uint8)
        mask = np.zeros((48, 48), dtype=np.uint8)
        yy, xx = np.mgrid[0:48, 0:48]
        cy, cx, rad = r.integers(10, 38, 2).tolist() + [r.integers(5, 10)]
        dist = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
        mask[dist < rad] = 1
        y0, x0 = r.integers(0, 34, 2)
        mask[y0:y0 + 14, x0:x0 + 14] = 2
        img[mask == 1] = (200, 60, 60)
        img[mask == 2] = (60, 60, 200)
        mask[np.abs(dist - rad) < 0.7] = IGNORE
        return img, mask


def collate(batch):
    imgs, masks = zip(*batch)
    x = torch.from_numpy(np.stack(imgs)).permute(0, 3, 1, 2).float().div(255.0)
    x = (x - MEAN) / STD
    y = torch.from_numpy(np.stack(masks)).long()
    return x, y


def cutmix(x, y, alpha=1.0):
    lam = np.random.beta(alpha, alpha)
    perm = torch.randperm(x.shape[0])
    h, w = x.shape[2:]
    ch, cw = int(h * np.sqrt(1 - lam)), int(w * np.sqrt(1 - lam))
    cy, cx = np.random.randint(h), np.random.randint(w)
    y0, y1, x0, x1 = max(cy - ch // 2, 0), min(cy + ch // 2, h), max(cx - cw // 2, 0), min(cx + cw // 2, w)
    x, y = x.clone(), y.clone()
    x[:, :, y0:y1, x0:x1] = x[perm, :, y0:y1, x0:x1]
    y[:, y0:y1, x0:x1] = y[perm, y0:y1, x0:x1]
    return x, y


class TinySegNet(nn.Module):
    def __init__(self, c=32):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(c, 2 * c, 3, stride=2, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU())
        self.dec = nn.Sequential(nn.Conv2d(3 * c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())
        self.classifier = nn.Conv2d(c, N_CLASSES, 1)

    def forward(self, x):
        f1 = self.enc1(x)
        f2 = F.interpolate(self.enc2(f1), size=f1.shape[2:], mode="bilinear", align_corners=False)
        return self.classifier(self.dec(torch.cat([f1, f2], dim=1)))


def confusion(pred, target):
    valid = target != IGNORE
    idx = N_CLASSES * target[valid] + pred[valid]
    return np.bincount(idx, minlength=N_CLASSES ** 2).reshape(N_CLASSES, N_CLASSES)


if __name__ == "__main__":
    train_dl = DataLoader(ShapesSeg(384, 0), batch_size=32, shuffle=True, collate_fn=collate, num_workers=2,
                          persistent_workers=True, pin_memory=torch.cuda.is_available())
    val_dl = DataLoader(ShapesSeg(96, 1), batch_size=48, collate_fn=collate)
    model = TinySegNet()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    for epoch in range(4):
        model.train()
        for x, y in train_dl:
            if np.random.rand() < 0.5:
                x, y = cutmix(x, y)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x)
            loss = F.cross_entropy(logits.float(), y, ignore_index=IGNORE)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        cm = np.zeros((N_CLASSES, N_CLASSES), dtype=np.int64)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            for x, y in val_dl:
                cm += confusion(model(x).argmax(1).numpy().ravel(), y.numpy().ravel())
        iou = np.diag(cm) / np.maximum(cm.sum(0) + cm.sum(1) - np.diag(cm), 1)
        dice = 2 * np.diag(cm) / np.maximum(cm.sum(0) + cm.sum(1), 1)
        print(f"epoch {epoch} loss {loss.item():.4f} mIoU {iou.mean():.3f} dice {np.round(dice, 3).tolist()}")
