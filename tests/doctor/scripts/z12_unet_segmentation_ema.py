import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Shapes(Dataset):
    """Random discs and squares on a noisy background, 3-class masks (bg / disc / square)."""

    def __init__(self, n=256, size=32, seed=0):
        self.n, self.size, self.seed = n, size, seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 100003 + i)
        yy, xx = torch.meshgrid(torch.arange(self.size), torch.arange(self.size), indexing="ij")
        mask = torch.zeros(self.size, self.size, dtype=torch.long)
        cx, cy, r = torch.randint(8, 24, (3,), generator=g)
        mask[((xx - cx) ** 2 + (yy - cy) ** 2) < (r // 3 + 3) ** 2] = 1
        sx, sy = torch.randint(2, 22, (2,), generator=g)
        mask[sy:sy + 8, sx:sx + 8] = 2
        img = mask.float().unsqueeze(0).repeat(3, 1, 1) * torch.tensor([0.0, 0.6, -0.6]).view(3, 1, 1)
        return img + 0.4 * torch.randn(3, self.size, self.size, generator=g), mask


def conv_block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.GroupNorm(4, o), nn.SiLU(),
                         nn.Conv2d(o, o, 3, padding=1), nn.GroupNorm(4, o), nn.SiLU())


class TinyUNet(nn.Module):
    def __init__(self, c=16, classes=3):
        super().__init__()
        self.down1, self.down2 = conv_block(3, c), conv_block(c, 2 * c)
        self.mid = conv_block(2 * c, 2 * c)
        self.up = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.dec = conv_block(2 * c, c)
        self.out = nn.Conv2d(c, classes, 1)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.mid(self.down2(F.max_pool2d(d1, 2)))
        return self.out(self.dec(torch.cat([self.up(d2), d1], dim=1)))


class ModelEma:
    def __init__(self, model, decay=0.99):
        self.module = copy.deepcopy(model).half().eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        ema_params = list(self.module.parameters())
        params = [p.detach() for p in model.parameters()]
        torch._foreach_lerp_(ema_params, params, 1.0 - self.decay)


def miou(logits, mask, classes=3):
    pred = logits.argmax(1)
    ious = []
    for c in range(classes):
        inter = ((pred == c) & (mask == c)).sum().item()
        union = ((pred == c) | (mask == c)).sum().item()
        ious.append(inter / max(union, 1))
    return sum(ious) / classes


def main():
    torch.manual_seed(0)
    loader = DataLoader(Shapes(), batch_size=16, shuffle=True)
    model = TinyUNet()
    ema = ModelEma(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3 * len(loader))
    class_weights = torch.tensor([0.5, 1.0, 1.0])

    for epoch in range(3):
        for img, mask in loader:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(img)
            loss = F.cross_entropy(logits.float(), mask, weight=class_weights)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            ema.update(model)
        with torch.no_grad():
            img, mask = next(iter(loader))
            logits = model(img)
            ema_logits = ema.module(img.half())
        print(f"epoch {epoch} loss {loss.item():.4f} mIoU {miou(logits, mask):.3f} "
              f"ema mIoU {miou(ema_logits.float(), mask):.3f}")


if __name__ == "__main__":
    main()
