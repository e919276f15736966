import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(4)
N_CLASSES = 10
CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


def synth_images(n):
    labels = rng.integers(0, N_CLASSES, n)
    base = rng.integers(40, 220, size=(N_CLASSES, 1, 1, 3))
    yy, xx = np.mgrid[0:32, 0:32]
    imgs = np.empty((n, 32, 32, 3), dtype=np.uint8)
    for i, y in enumerate(labels):
        stripes = 30 * np.sin((xx * (y + 1) + yy) / 4.0)[..., None]
        img = base[y] + stripes + rng.normal(0, 12, size=(32, 32, 3))
        imgs[i] = np.clip(img, 0, 255).astype(np.uint8)
    return imgs, labels


class CifarLike(Dataset):
    def __init__(self, imgs, labels, train):
        self.imgs, self.labels, self.train = imgs, labels, train

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = self.imgs[i]
        if self.train:
            img = np.pad(img, ((4, 4), (4, 4), (0, 0)), mode="reflect")
            dy, dx = rng.integers(0, 9, 2)
            img = img[dy:dy + 32, dx:dx + 32]
            if rng.random() < 0.5:
                img = img[:, ::-1]
        img = torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1)
        return img, int(self.labels[i])


class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean).view(1, 3, 1, 1) * 255.0)
        self.register_buffer("std", torch.tensor(std).view(1, 3, 1, 1) * 255.0)

    def forward(self, x):
        return x.sub_(self.mean).div_(self.std)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.normalize = Normalize(CIFAR_MEAN, CIFAR_STD)
        self.features = nn.Sequential(block(3, 32), nn.MaxPool2d(2), block(32, 64), nn.MaxPool2d(2), block(64, 64))
        self.classifier = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        x = self.normalize(x)
        return self.classifier(self.features(x).mean((2, 3)))


imgs, labels = synth_images(1200)
train_dl = DataLoader(CifarLike(imgs[:1000], labels[:1000], True), batch_size=64, shuffle=True)
val_dl = DataLoader(CifarLike(imgs[1000:], labels[1000:], False), batch_size=200)
model = SmallNet()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3 * len(train_dl))

for epoch in range(3):
    model.train()
    for x, y in train_dl:
        loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in val_dl:
            correct += (model(x).argmax(1) == y).sum().item()
    print(f"epoch {epoch} loss {loss.item():.4f} val_acc {correct / 200:.3f}")
