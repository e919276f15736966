import copy
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 10


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(conv_bn(3, 16), conv_bn(16, 32, 2), conv_bn(32, 64, 2), conv_bn(64, 64))
        self.fc = nn.Linear(64, NUM_CLASSES)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


def soft_targets(y, smoothing=0.1):
    off = smoothing / NUM_CLASSES
    return torch.full((y.size(0), NUM_CLASSES), off).scatter_(1, y[:, None], 1.0 - smoothing + off)


def mixup_cutmix(x, y, alpha=0.8):
    lam = float(rng.beta(alpha, alpha))
    perm = torch.randperm(x.size(0))
    t = soft_targets(y)
    if rng.random() < 0.5:
        x = lam * x + (1 - lam) * x[perm]
    else:
        h, w = x.shape[2:]
        ch, cw = int(h * np.sqrt(1 - lam)), int(w * np.sqrt(1 - lam))
        cy, cx = rng.integers(h), rng.integers(w)
        y0, y1 = max(cy - ch // 2, 0), min(cy + ch // 2, h)
        x0, x1 = max(cx - cw // 2, 0), min(cx + cw // 2, w)
        x = x.clone()
        x[:, :, y0:y1, x0:x1] = x[perm, :, y0:y1, x0:x1]
        lam = 1 - (y1 - y0) * (x1 - x0) / (h * w)
    return x, lam * t + (1 - lam) * t[perm]


@torch.no_grad()
def ema_update(ema, model, decay=0.99):
    for e, p in zip(ema.parameters(), model.parameters()):
        e.lerp_(p.detach(), 1 - decay)
    for e, b in zip(ema.buffers(), model.buffers()):
        e.copy_(b)


def main():
    mean = torch.tensor([125.3, 123.0, 113.9]).view(1, 3, 1, 1)
    std = torch.tensor([63.0, 62.1, 66.7]).view(1, 3, 1, 1)
    images = torch.from_numpy(rng.integers(0, 256, (256, 32, 32, 3), dtype=np.uint8))
    labels = torch.from_numpy(rng.integers(0, NUM_CLASSES, 256)).long()

    model = Net().to(memory_format=torch.channels_last)
    ema = copy.deepcopy(model).eval()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)

    for epoch in range(2):
        perm = torch.randperm(len(images))
        for i in range(0, len(images), 32):
            idx = perm[i:i + 32]
            x = (images[idx].permute(0, 3, 1, 2).float() - mean) / std
            x = x.contiguous(memory_format=torch.channels_last)
            x, target = mixup_cutmix(x, labels[idx])
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x)
            loss = torch.sum(-target * F.log_softmax(logits.float(), dim=-1), dim=-1).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            ema_update(ema, model)
        print(f"epoch {epoch} train loss {loss.item():.4f}")

    with torch.no_grad():
        x = (images[:64].permute(0, 3, 1, 2).float() - mean) / std
        logits = ema(x.contiguous(memory_format=torch.channels_last))
        val_loss = F.cross_entropy(logits, labels[:64])
        top5 = logits.topk(5, dim=1).indices.eq(labels[:64, None]).any(1).float().mean()
    print(f"ema val loss {val_loss.item():.4f} top5 {top5.item():.3f}")
    with tempfile.TemporaryDirectory() as d:
        torch.save({"model": model.state_dict(), "ema": ema.state_dict()}, os.path.join(d, "ckpt.pt"))


if __name__ == "__main__":
    main()
