import copy
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(10)
rng = np.random.default_rng(10)
SIZE = 48


def mri_slices(n, labelled=True):
    yy, xx = np.mgrid[:SIZE, :SIZE]
    imgs = np.zeros((n, SIZE, SIZE), np.uint16)
    segs = np.zeros((n, SIZE, SIZE), np.int64)
    for i in range(n):
        brain = ((yy - 24) / 20) ** 2 + ((xx - 24) / 17) ** 2 < 1
        wm = ((yy - 24) / 12) ** 2 + ((xx - 24) / 9) ** 2 < 1
        cy, cx = rng.integers(14, 34, 2)
        tumour = (yy - cy) ** 2 + (xx - cx) ** 2 < rng.integers(9, 36)
        img = rng.normal(30, 8, (SIZE, SIZE))
        img[brain] = rng.normal(1100, 60, brain.sum())
        img[wm] = rng.normal(1500, 60, wm.sum())
        img[tumour & brain] = rng.normal(2300, 90, (tumour & brain).sum())
        imgs[i] = img.clip(0, 4095)
        segs[i] = (tumour & brain).astype(np.int64) + brain.astype(np.int64)
    return imgs, (segs if labelled else None)


def normalise(imgs):
    x = torch.from_numpy(imgs.astype(np.float32))[:, None]
    m = x.mean((2, 3), keepdim=True)
    s = x.std((2, 3), keepdim=True)
    return (x - m) / s


class SegNet(nn.Module):
    def __init__(self, w=16, ncls=3):
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, w, 3, padding=2, dilation=2), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, w, 3, padding=4, dilation=4), nn.BatchNorm2d(w), nn.ReLU(),
        )
        self.cls = nn.Conv2d(w, ncls, 1)

    def forward(self, x):
        return self.cls(self.f(x))


def sharpen(logits, T):
    e = torch.exp(logits / T)
    return e / e.sum(1, keepdim=True)


@torch.no_grad()
def ema_update(teacher, student, alpha):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(alpha).add_(s.detach().to(t.dtype), alpha=1 - alpha)
    for tb, sb in zip(teacher.buffers(), student.buffers()):
        tb.copy_(sb)


def main():
    student = SegNet()
    teacher = copy.deepcopy(student).half().eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = torch.optim.Adam(student.parameters(), lr=3e-3)
    steps, warmup = 30, 10
    for step in range(steps):
        xl, yl = mri_slices(4)
        xu, _ = mri_slices(4, labelled=False)
        xl, yl, xu = normalise(xl), torch.from_numpy(yl), normalise(xu)
        sup = F.cross_entropy(student(xl), yl)
        noisy = xu + 0.1 * torch.randn_like(xu)
        with torch.no_grad():
            target = sharpen(teacher(xu.half()), T=0.1).float()
        s_prob = student(noisy).softmax(1)
        cons = F.mse_loss(s_prob, target)
        w = 0.0 if step < warmup else math.exp(-5 * (1 - (step - warmup) / (steps - warmup)) ** 2)
        loss = sup + 10.0 * w * cons
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema_update(teacher, student, alpha=0.9)
        if step % 5 == 0 or step == steps - 1:
            print(f"step {step:02d} sup {sup.item():.4f} cons {cons.item():.4f} w {w:.3f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
