import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
np.random.seed(0)


class TernarySTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w, delta):
        return torch.where(w > delta, torch.ones_like(w), torch.where(w < -delta, -torch.ones_like(w), torch.zeros_like(w)))

    @staticmethod
    def backward(ctx, g):
        return g, None


def ttq_channel_scales(weight, delta):
    w = weight.detach().cpu().numpy().reshape(weight.shape[0], -1)
    mask = np.abs(w) > delta[:, None]
    num = (np.abs(w) * mask).sum(axis=1)
    den = np.maximum(mask.sum(axis=1), 1)
    return torch.from_numpy(num / den)


class TernaryConv2d(nn.Conv2d):
    def __init__(self, *args, delta_ratio=0.7, **kwargs):
        super().__init__(*args, **kwargs)
        self.delta_ratio = delta_ratio

    def forward(self, x):
        w = self.weight
        delta = self.delta_ratio * w.detach().abs().mean(dim=(1, 2, 3))
        w_t = TernarySTE.apply(w, delta.view(-1, 1, 1, 1))
        alpha = ttq_channel_scales(w, delta.numpy())
        w_q = w_t * alpha.view(-1, 1, 1, 1)
        return F.conv2d(x, w_q, self.bias, self.stride, self.padding)


class TernaryNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(1, 16, 3, padding=1)
        self.features = nn.Sequential(
            nn.BatchNorm2d(16),
            nn.ReLU(),
            TernaryConv2d(16, 32, 3, padding=1, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
            TernaryConv2d(32, 32, 3, padding=1, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.features(self.stem(x)).flatten(1))


def synthetic_digits(n=512, size=16, n_classes=10):
    y = torch.randint(0, n_classes, (n,))
    xs = torch.linspace(-1, 1, size)
    gx, gy = torch.meshgrid(xs, xs, indexing="ij")
    freq = (y.float() + 1.0)[:, None, None]
    img = torch.sin(freq * gx[None] * 2.0) * torch.cos(freq * gy[None])
    img = img + 0.3 * torch.randn(n, size, size)
    return img.unsqueeze(1), y


x, y = synthetic_digits()
loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)

model = TernaryNet()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3 * len(loader))

for epoch in range(3):
    model.train()
    total, correct, running = 0, 0, 0.0
    for xb, yb in loader:
        logits = model(xb)
        loss = F.cross_entropy(logits, yb, label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running += loss.item() * yb.numel()
        total += yb.numel()
        correct += (logits.argmax(1) == yb).sum().item()
    print(f"epoch {epoch} loss {running / total:.4f} acc {correct / total:.3f}")
