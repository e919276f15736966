import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 4


class ShapesSegmentation(Dataset):
    def __init__(self, n, size=48):
        self.images, self.masks = [], []
        yy, xx = np.mgrid[:size, :size]
        for _ in range(n):
            img = rng.normal(0.0, 0.1, (size, size, 3)).astype(np.float32)
            mask = np.zeros((size, size), dtype=np.uint8)
            for cls in range(1, NUM_CLASSES):
                cx, cy, r = rng.integers(8, size - 8, 2).tolist() + [int(rng.integers(3, 8))]
                region = ((xx - cx) ** 2 + (yy - cy) ** 2 < r ** 2) if cls % 2 else ((abs(xx - cx) < r) & (abs(yy - cy) < r))
                mask[region] = cls
                img[region] += np.array([cls * 0.3, 1.0 - cls * 0.2, 0.5], dtype=np.float32)
            self.images.append(img)
            self.masks.append(mask)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.masks[i]


def collate(batch):
    imgs = torch.from_numpy(np.stack([b[0] for b in batch])).permute(0, 3, 1, 2).contiguous()
    masks = torch.from_numpy(np.stack([b[1] for b in batch]))
    return imgs, masks


class SegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU())
        self.context = nn.Sequential(nn.Conv2d(64, 64, 3, padding=2, dilation=2), nn.BatchNorm2d(64), nn.ReLU())
        self.classifier = nn.Conv2d(64, NUM_CLASSES, 1)

    def forward(self, x):
        h = self.context(self.enc2(self.enc1(x)))
        logits = self.classifier(h)
        return F.interpolate(logits, size=x.shape[-2:], mode="bilinear", align_corners=False)


def class_weights(dataset):
    counts = np.bincount(np.concatenate([m.ravel() for m in dataset.masks]), minlength=NUM_CLASSES)
    freq = counts / counts.sum()
    w = 1.0 / np.log(1.02 + freq)
    return torch.tensor(w / w.mean(), dtype=torch.float32)


def mean_iou(pred, target):
    ious = []
    for c in range(NUM_CLASSES):
        inter = ((pred == c) & (target == c)).sum().item()
        union = ((pred == c) | (target == c)).sum().item()
        if union:
            ious.append(inter / union)
    return sum(ious) / len(ious)


def main():
    train = ShapesSegmentation(160)
    loader = DataLoader(train, batch_size=16, shuffle=True, collate_fn=collate)
    model = SegNet()
    criterion = nn.CrossEntropyLoss(weight=class_weights(train))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(3):
        model.train()
        for imgs, masks in loader:
            logits = model(imgs)
            loss = criterion(logits, masks)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            imgs, masks = collate([train[i] for i in range(32)])
            miou = mean_iou(model(imgs).argmax(1), masks)
        print(f"epoch {epoch} loss {loss.item():.4f} mIoU {miou:.3f}")


if __name__ == "__main__":
    main()
