import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 10


class DWBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 5, padding=2, groups=dim)
        self.norm = nn.GroupNorm(1, dim)
        self.pw = nn.Sequential(nn.Conv2d(dim, 2 * dim, 1), nn.GELU(), nn.Conv2d(2 * dim, dim, 1))

    def forward(self, x):
        return x + self.pw(self.norm(self.dw(x)))


class Net(nn.Module):
    def __init__(self, dim=48):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, 4, 4)
        self.blocks = nn.Sequential(DWBlock(dim), DWBlock(dim))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, NUM_CLASSES)

    def forward(self, x):
        return self.head(self.norm(self.blocks(self.stem(x)).mean((2, 3))))


def batches(n, bs=64, size=32):
    labels = rng.integers(0, NUM_CLASSES, n)
    colors = rng.uniform(0, 255, (NUM_CLASSES, 3))
    imgs = np.clip(colors[labels][:, None, None, :] + rng.normal(0, 60, (n, size, size, 3)), 0, 255)
    imgs = imgs.astype(np.uint8)
    mean = torch.tensor([127.5, 127.5, 127.5]).view(1, 3, 1, 1)
    for i in range(0, n, bs):
        x = (torch.from_numpy(imgs[i:i + bs]).permute(0, 3, 1, 2).float() - mean) / 64.0
        yield x, torch.from_numpy(labels[i:i + bs]).long()


class CalibrationMeter:
    def __init__(self, n_bins=15):
        self.n_bins = n_bins
        self.count = torch.zeros(n_bins)
        self.conf_sum = torch.zeros(n_bins)
        self.acc_sum = torch.zeros(n_bins)
        self.confusion = torch.zeros(NUM_CLASSES, NUM_CLASSES, dtype=torch.long)

    def update(self, logits, labels, temperature=1.0):
        probs = torch.softmax(logits / temperature, dim=-1)
        conf, pred = probs.max(-1)
        idx = torch.clamp((conf * self.n_bins).long(), max=self.n_bins - 1)
        correct = (pred == labels).to(conf.dtype)
        self.count += torch.bincount(idx, minlength=self.n_bins)
        self.conf_sum.scatter_add_(0, idx, conf)
        self.acc_sum.scatter_add_(0, idx, correct)
        self.confusion.index_put_((labels, pred), torch.ones_like(labels), accumulate=True)

    def ece(self):
        w = self.count / self.count.sum()
        gap = (self.conf_sum - self.acc_sum).abs() / self.count.clamp_min(1)
        return (w * gap).sum().item()


def main():
    model = Net()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    for epoch in range(3):
        for x, y in batches(512):
            loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

    model = model.to(torch.bfloat16).eval()
    meter = CalibrationMeter()
    val_loss, n = 0.0, 0
    with torch.no_grad():
        for x, y in batches(256):
            logits = model(x.to(torch.bfloat16))
            val_loss += F.cross_entropy(logits.float(), y, reduction="sum").item()
            n += len(y)
            meter.update(logits, y, temperature=1.5)
    print(f"val loss {val_loss / n:.4f} ece {meter.ece():.4f}")
    print(meter.confusion)


if __name__ == "__main__":
    main()
