import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 6


class PerImageStandardize(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        mean = x.mean(dim=(2, 3), keepdim=True)
        sq_mean = (x * x).mean(dim=(2, 3), keepdim=True)
        var = sq_mean - mean * mean
        return (x - mean) / torch.sqrt(var + self.eps)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_norm = PerImageStandardize()
        self.features = nn.Sequential(
            nn.Conv2d(3, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU(),
            nn.Conv2d(24, 48, 3, stride=2, padding=1), nn.BatchNorm2d(48), nn.ReLU(),
            nn.Conv2d(48, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(64, NUM_CLASSES)

    def forward(self, x):
        return self.head(self.features(self.input_norm(x)))


def synth_photos(n=192, size=32):
    """uint8 HWC images like PIL would give: textured, some foggy/overexposed."""
    labels = rng.integers(0, NUM_CLASSES, n)
    base = rng.uniform(60, 200, (n, 1, 1, 3))
    freq = (labels[:, None, None, None] + 1) * 0.2
    yy = np.arange(size)[None, :, None, None]
    pattern = np.sin(freq * yy) * 40
    contrast = np.where(rng.random((n, 1, 1, 1)) < 0.3, 0.05, 1.0)
    brightness = np.where(contrast < 1, 230.0, 0.0)
    img = base + contrast * (pattern + rng.normal(0, 15, (n, size, size, 3)))
    img = np.maximum(img, brightness + contrast * pattern)
    return np.clip(img, 0, 255).astype(np.uint8), labels


def main():
    images, labels = synth_photos()
    model = ConvNet().to(dtype=torch.bfloat16, memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(3):
        order = rng.permutation(len(images))
        total = 0.0
        for i in range(0, len(images), 32):
            idx = order[i:i + 32]
            x = torch.from_numpy(images[idx]).permute(0, 3, 1, 2).to(torch.bfloat16)
            x = x.contiguous(memory_format=torch.channels_last)
            y = torch.from_numpy(labels[idx]).long()
            loss = F.cross_entropy(model(x).float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / (len(images) // 32):.4f}")


if __name__ == "__main__":
    main()
