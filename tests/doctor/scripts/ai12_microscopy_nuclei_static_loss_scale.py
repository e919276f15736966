import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(12)
rng = np.random.default_rng(12)
SIZE = 48
LOSS_SCALE = 2.0 ** 16


def fluorescence_fields(n):
    yy, xx = np.mgrid[:SIZE, :SIZE]
    imgs = np.zeros((n, SIZE, SIZE), np.uint16)
    masks = np.zeros((n, SIZE, SIZE), np.float32)
    for i in range(n):
        field = rng.poisson(90, (SIZE, SIZE)).astype(np.float64)
        m = np.zeros((SIZE, SIZE), bool)
        for _ in range(rng.integers(3, 8)):
            cy, cx = rng.integers(4, SIZE - 4, 2)
            ry, rx = rng.uniform(2.5, 5.0, 2)
            nuc = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 < 1
            field[nuc] += rng.normal(1800, 200)
            m |= nuc
        imgs[i] = field.clip(0, 65535)
        masks[i] = m
    return imgs, masks


def percentile_norm(imgs, lo=1, hi=99.8):
    a, b = np.percentile(imgs, lo), np.percentile(imgs, hi)
    return torch.from_numpy(((imgs - a) / (b - a)).clip(0, 1).astype(np.float32))[:, None]


class NucleiUNet(nn.Module):
    def __init__(self, w=16):
        super().__init__()
        c = lambda i, o: nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.e1, self.e2, self.e3 = c(1, w), c(w, 2 * w), c(2 * w, 4 * w)
        self.u2, self.d2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, 2), c(4 * w, 2 * w)
        self.u1, self.d1 = nn.ConvTranspose2d(2 * w, w, 2, 2), c(2 * w, w)
        self.out = nn.Conv2d(w, 1, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(F.max_pool2d(a, 2))
        c = self.e3(F.max_pool2d(b, 2))
        d = self.d2(torch.cat([self.u2(c), b], 1))
        return self.out(self.d1(torch.cat([self.u1(d), a], 1)))[:, 0]


def bce_dice(logits, target, smooth=1.0):
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits)
    dice = (2 * (p * target).sum() + smooth) / (p.sum() + target.sum() + smooth)
    return bce + (1 - dice)


def main():
    model = NucleiUNet().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    for step in range(12):
        imgs, masks = fluorescence_fields(4)
        x = percentile_norm(imgs).half()
        y = torch.from_numpy(masks).half()
        loss = bce_dice(model(x), y)
        opt.zero_grad()
        (loss * LOSS_SCALE).backward()
        for p in model.parameters():
            p.grad.div_(LOSS_SCALE)
        opt.step()
        if step % 3 == 0 or step == 11:
            print(f"step {step:02d} loss {loss.item():.4f}")
    with tempfile.TemporaryDirectory() as d:
        torch.save(model.state_dict(), f"{d}/nuclei_unet_fp16.pt")
        print("checkpoint saved")


if __name__ == "__main__":
    main()
