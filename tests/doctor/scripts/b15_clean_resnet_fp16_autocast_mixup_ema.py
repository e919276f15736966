"""Clean recipe: small ResNet trained channels_last with fp16 autocast + GradScaler, mixup /
cutmix with soft targets and label smoothing, gradient accumulation, clipping on unscaled
gradients, warmup + cosine LR, and a weight EMA that only averages floating-point entries."""
import copy
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES, ACCUM, EPOCHS, BS = 10, 2, 2, 16
MEAN = torch.tensor([0.49, 0.48, 0.45]).view(1, 3, 1, 1)
STD = torch.tensor([0.25, 0.24, 0.26]).view(1, 3, 1, 1)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None if stride == 1 and cin == cout else nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + idt)


class ResNetSmall(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layers = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
        self.fc = nn.Linear(64, NUM_CLASSES)

    def forward(self, x):
        return self.fc(self.layers(self.stem(x)).mean((2, 3)))


class EMA:
    def __init__(self, model, decay=0.99):
        self.module = copy.deepcopy(model).eval()
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for ema_v, v in zip(self.module.state_dict().values(), model.state_dict().values()):
            if ema_v.dtype.is_floating_point:
                ema_v.lerp_(v.detach(), 1.0 - self.decay)
            else:
                ema_v.copy_(v)


def to_tensor(batch_u8):
    x = torch.from_numpy(batch_u8).permute(0, 3, 1, 2).float().div_(255)
    return ((x - MEAN) / STD).contiguous(memory_format=torch.channels_last)


def mix(x, y, smoothing=0.1):
    target = F.one_hot(y, NUM_CLASSES).float() * (1 - smoothing) + smoothing / NUM_CLASSES
    perm = torch.randperm(x.shape[0])
    lam = float(rng.beta(1.0, 1.0))
    if rng.random() < 0.5:  # mixup
        x = lam * x + (1 - lam) * x[perm]
    else:  # cutmix
        h, w = x.shape[-2:]
        ch, cw = int(h * math.sqrt(1 - lam)), int(w * math.sqrt(1 - lam))
        cy, cx = int(rng.integers(h)), int(rng.integers(w))
        y1, y2, x1, x2 = max(cy - ch // 2, 0), min(cy + ch // 2, h), max(cx - cw // 2, 0), min(cx + cw // 2, w)
        x = x.clone()
        x[..., y1:y2, x1:x2] = x[perm][..., y1:y2, x1:x2]
        lam = 1 - (y2 - y1) * (x2 - x1) / (h * w)
    return x, lam * target + (1 - lam) * target[perm]


imgs = rng.integers(0, 256, size=(160, 32, 32, 3), dtype=np.uint8)
lbls = rng.integers(0, NUM_CLASSES, size=160)

model = ResNetSmall().to(memory_format=torch.channels_last)
ema = EMA(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4, nesterov=True)
scaler = torch.amp.GradScaler("cpu", init_scale=128.0, growth_interval=1000)
total = EPOCHS * len(imgs) // (BS * ACCUM)
warm = 2
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / (total - warm))))

for epoch in range(EPOCHS):
    model.train()
    order = rng.permutation(len(imgs))
    for i, start in enumerate(range(0, len(order), BS)):
        idx = order[start:start + BS]
        x, target = mix(to_tensor(imgs[idx]), torch.from_numpy(lbls[idx]))
        with torch.autocast("cpu", dtype=torch.float16):
            logits = model(x)
        loss = torch.sum(-target * F.log_softmax(logits.float(), -1), -1).mean() / ACCUM
        scaler.scale(loss).backward()
        if (i + 1) % ACCUM == 0:
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            sched.step()
            ema.update(model)
    with torch.no_grad():
        val = ema.module(to_tensor(imgs[:64]))
    acc = (val.argmax(-1) == torch.from_numpy(lbls[:64])).float().mean()
    print(f"epoch {epoch} loss {loss.item() * ACCUM:.4f} lr {sched.get_last_lr()[0]:.4f} ema acc {acc.item():.3f}")
