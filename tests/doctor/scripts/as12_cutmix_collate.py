import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
NUM_CLASSES = 10


class NumpyImageFolder(Dataset):
    def __init__(self, n=192, size=32, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.integers(0, 256, (n, size, size, 3), dtype=np.uint8)
        self.targets = rng.integers(0, NUM_CLASSES, n).astype(np.int32)
        self.mean = np.array([0.4914, 0.4822, 0.4465], dtype=np.float32)
        self.std = np.array([0.2470, 0.2435, 0.2616], dtype=np.float32)

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        img = self.images[i]
        if np.random.rand() < 0.5:
            img = img[:, ::-1]
        img = (img.astype(np.float32) / 255.0 - self.mean) / self.std
        return np.ascontiguousarray(img.transpose(2, 0, 1)), self.targets[i]


class CutMixCollate:
    def __init__(self, alpha=1.0, smoothing=0.1):
        self.alpha = alpha
        self.smoothing = smoothing

    def __call__(self, batch):
        x = torch.from_numpy(np.stack([b[0] for b in batch]))
        y = torch.from_numpy(np.array([b[1] for b in batch]))
        lam = np.random.beta(self.alpha, self.alpha)
        perm = torch.randperm(x.size(0))
        h, w = x.shape[2:]
        rh, rw = int(h * np.sqrt(1 - lam)), int(w * np.sqrt(1 - lam))
        cy, cx = np.random.randint(h), np.random.randint(w)
        y0, y1 = np.clip([cy - rh // 2, cy + rh // 2], 0, h)
        x0, x1 = np.clip([cx - rw // 2, cx + rw // 2], 0, w)
        x[:, :, y0:y1, x0:x1] = x[perm, :, y0:y1, x0:x1]
        lam = 1.0 - (y1 - y0) * (x1 - x0) / float(h * w)
        return x, y, perm, lam


def soft_target(y, perm, lam, smoothing=0.1):
    off = smoothing / NUM_CLASSES
    one_hot = F.one_hot(y, NUM_CLASSES).float() * (1 - smoothing) + off
    return lam * one_hot + (1 - lam) * one_hot[perm]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(64, NUM_CLASSES)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def main():
    np.random.seed(0)
    loader = DataLoader(NumpyImageFolder(), batch_size=32, shuffle=True, collate_fn=CutMixCollate())
    model = Net().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    for epoch in range(2):
        running = 0.0
        for x, y, perm, lam in loader:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x.contiguous(memory_format=torch.channels_last))
            target = soft_target(y, perm, lam)
            loss = torch.sum(-target * F.log_softmax(logits.float(), -1), -1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
        print(f"epoch {epoch} loss {running / len(loader):.4f}")


if __name__ == "__main__":
    main()
