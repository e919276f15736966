import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)

MEAN = np.array([0.485, 0.456, 0.406]) * 255.0
STD = np.array([0.229, 0.224, 0.225]) * 255.0


def make_dataset(n=256, size=32, num_classes=10):
    images = rng.integers(0, 256, size=(n, size, size, 3), dtype=np.uint8)
    labels = rng.integers(0, num_classes, size=(n,))
    return images, labels


def preprocess(batch_u8):
    x = (batch_u8.astype(np.float64) - MEAN) / STD
    x = torch.from_numpy(x).permute(0, 3, 1, 2)
    return x.contiguous(memory_format=torch.channels_last)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Identity()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.short(x))


class SmallResNet(nn.Module):
    def __init__(self, num_classes=10, width=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.layer1 = BasicBlock(width, width)
        self.layer2 = BasicBlock(width, 2 * width, stride=2)
        self.layer3 = BasicBlock(2 * width, 4 * width, stride=2)
        self.fc = nn.Linear(4 * width, num_classes)

    def forward(self, x):
        x = self.layer3(self.layer2(self.layer1(self.stem(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def main():
    images, labels = make_dataset()
    model = SmallResNet().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    crit = nn.CrossEntropyLoss(label_smoothing=0.1)
    bs = 32
    for epoch in range(2):
        perm = rng.permutation(len(images))
        total = 0.0
        for i in range(0, len(images), bs):
            idx = perm[i:i + bs]
            x = preprocess(images[idx])
            if rng.random() < 0.5:
                x = torch.flip(x, dims=[3])
            y = torch.from_numpy(labels[idx])
            logits = model(x)
            loss = crit(logits, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / (len(images) // bs):.4f}")
    with tempfile.TemporaryDirectory() as d:
        torch.save(model.state_dict(), os.path.join(d, "resnet.pt"))


if __name__ == "__main__":
    main()
