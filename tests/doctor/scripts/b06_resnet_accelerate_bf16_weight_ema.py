"""ResNet-ish CNN trained with accelerate (bf16 mixed precision on CPU), mixup, and an
exponential moving average of the weights that is used for evaluation."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from accelerate import Accelerator

torch.manual_seed(0)
np.random.seed(0)


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = conv_bn(cin, cout, stride)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Identity() if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return F.relu(self.bn2(self.conv2(self.conv1(x))) + self.short(x))


class ResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = conv_bn(3, 16)
        self.layer1 = BasicBlock(16, 16, 1)
        self.layer2 = BasicBlock(16, 32, 2)
        self.layer3 = BasicBlock(32, 64, 2)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = self.layer3(self.layer2(self.layer1(self.stem(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class ModelEma:
    """Keep a moving average of everything in the model state_dict."""

    def __init__(self, model, decay=0.999):
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        msd = model.state_dict()
        for k, ema_v in self.module.state_dict().items():
            ema_v.mul_(self.decay).add_(msd[k].detach(), alpha=1.0 - self.decay)


def mixup(x, y, num_classes, alpha=0.2):
    lam = float(np.random.beta(alpha, alpha))
    perm = torch.randperm(x.size(0), device=x.device)
    y1 = F.one_hot(y, num_classes).float()
    return lam * x + (1 - lam) * x[perm], lam * y1 + (1 - lam) * y1[perm]


accelerator = Accelerator(mixed_precision="bf16", cpu=True)

images = torch.randn(192, 3, 32, 32)
labels = torch.randint(0, 10, (192,))
train_dl = DataLoader(TensorDataset(images[:160], labels[:160]), batch_size=32, shuffle=True)
val_dl = DataLoader(TensorDataset(images[160:], labels[160:]), batch_size=32)

model = ResNet()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
model, opt, train_dl, val_dl = accelerator.prepare(model, opt, train_dl, val_dl)
ema = ModelEma(accelerator.unwrap_model(model), decay=0.99)

for epoch in range(2):
    model.train()
    for x, y in train_dl:
        x, soft = mixup(x, y, 10)
        logits = model(x)
        loss = torch.sum(-soft * F.log_softmax(logits, -1), -1).mean()
        opt.zero_grad()
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        ema.update(accelerator.unwrap_model(model))
    ema.module.eval()
    correct = 0
    with torch.no_grad():
        for x, y in val_dl:
            correct += (ema.module(x).argmax(-1) == y).sum().item()
    accelerator.print(f"epoch {epoch} loss {loss.item():.4f} ema val acc {correct / 32:.3f}")
