import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)


class Bottleneck(nn.Module):
    def __init__(self, c, mid):
        super().__init__()
        self.conv1 = nn.Conv2d(c, mid, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(mid)
        self.conv2 = nn.Conv2d(mid, mid, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(mid)
        self.conv3 = nn.Conv2d(mid, c, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        return F.relu(x + self.bn3(self.conv3(y)))


class ResNetLite(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU())
        self.blocks = nn.Sequential(Bottleneck(32, 16), Bottleneck(32, 16))
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(x.mean((2, 3)))


def loader(n=256, bs=32):
    mean = np.array([123.7, 116.3, 103.5], dtype=np.float32)
    std = np.array([58.4, 57.1, 57.4], dtype=np.float32)
    imgs = rng.integers(0, 256, (n, 32, 32, 3), dtype=np.uint8)
    labels = rng.integers(0, 10, n)
    for i in range(0, n, bs):
        x = (imgs[i:i + bs].astype(np.float32) - mean) / std
        x = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
        yield x, torch.from_numpy(labels[i:i + bs]).long()


def main():
    model = ResNetLite().to(memory_format=torch.channels_last)
    master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
    model.half()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.float()
    opt = torch.optim.SGD(master, lr=0.1, momentum=0.9, weight_decay=1e-4)
    loss_scale = 2.0 ** 16

    for epoch in range(3):
        for step, (x, y) in enumerate(loader()):
            logits = model(x.half())
            loss = F.cross_entropy(logits, y, label_smoothing=0.1)
            model.zero_grad(set_to_none=True)
            (loss * loss_scale).backward()
            for mp, p in zip(master, model.parameters()):
                mp.grad = p.grad.float() / loss_scale
            opt.step()
            with torch.no_grad():
                for mp, p in zip(master, model.parameters()):
                    p.copy_(mp)
            if step % 4 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
