import math
import tempfile
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
np.random.seed(0)

NUM_CLASSES = 5
FRAMES, SIZE = 8, 32


class SyntheticClips(Dataset):
    """Moving-square clips; the class is the direction/speed of motion."""

    def __init__(self, n):
        self.n = n
        self.labels = np.random.randint(0, NUM_CLASSES, size=n)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        label = int(self.labels[i])
        clip = np.random.rand(3, FRAMES, SIZE, SIZE) * 0.1
        dx = label - NUM_CLASSES // 2
        x0, y0 = np.random.randint(8, 20, size=2)
        for t in range(FRAMES):
            x = int(np.clip(x0 + dx * t, 0, SIZE - 6))
            clip[:, t, y0:y0 + 6, x:x + 6] = 1.0
        mean = clip.mean(axis=(1, 2, 3), keepdims=True)
        std = clip.std(axis=(1, 2, 3), keepdims=True) + 1e-6
        return (clip - mean) / std, label


def collate(batch):
    clips = np.stack([b[0] for b in batch])
    labels = np.array([b[1] for b in batch])
    return torch.from_numpy(clips), torch.from_numpy(labels)


def conv_bn(cin, cout, stride):
    return nn.Sequential(
        nn.Conv3d(cin, cout, kernel_size=3, stride=stride, padding=1, bias=False),
        nn.BatchNorm3d(cout),
        nn.ReLU(inplace=True),
    )


class ResBlock3d(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = conv_bn(cin, cout, stride)
        self.conv2 = nn.Sequential(nn.Conv3d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout))
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv3d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm3d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        return F.relu(self.conv2(self.conv1(x)) + idt)


class R3D(nn.Module):
    def __init__(self, num_classes, width=8):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv3d(3, width, kernel_size=(3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2)),
            nn.BatchNorm3d(width),
            nn.ReLU(inplace=True),
        )
        self.layer1 = ResBlock3d(width, width, 1)
        self.layer2 = ResBlock3d(width, width * 2, 2)
        self.layer3 = ResBlock3d(width * 2, width * 4, 2)
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(width * 4, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(self.pool(x).flatten(1))


def main():
    device = torch.device("cpu")
    dtype = torch.bfloat16
    model = R3D(NUM_CLASSES).to(device=device, dtype=dtype)
    loader = DataLoader(SyntheticClips(32), batch_size=8, shuffle=True, collate_fn=collate)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    steps = 2 * len(loader)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / steps)))

    for epoch in range(2):
        model.train()
        total, correct, running = 0, 0, 0.0
        for clips, labels in loader:
            clips, labels = clips.to(device), labels.to(device)
            logits = model(clips)
            loss = F.cross_entropy(logits.float(), labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            running += loss.item() * labels.numel()
            correct += (logits.argmax(1) == labels).sum().item()
            total += labels.numel()
        print(f"epoch {epoch} loss {running / total:.4f} acc {correct / total:.3f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r3d.pt")
        torch.save(model.state_dict(), path)
        print("saved", path)


if __name__ == "__main__":
    main()
