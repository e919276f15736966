import math
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
rng = np.random.default_rng(1)


def make_mri_batch(b=2, size=16):
    zz, yy, xx = np.mgrid[:size, :size, :size]
    vols, masks = [], []
    for _ in range(b):
        brain = ((zz - 8) ** 2 + (yy - 8) ** 2 + (xx - 8) ** 2) < 40
        c = rng.integers(5, 11, 3)
        lesion = ((zz - c[0]) ** 2 + (yy - c[1]) ** 2 + (xx - c[2]) ** 2) < 9
        v = rng.normal(40, 10, (size,) * 3)
        v[brain] = rng.normal(1800, 150, brain.sum())
        v[lesion] = rng.normal(2600, 120, lesion.sum())
        vols.append(np.clip(v, 0, 65535).astype(np.uint16))
        masks.append(lesion.astype(np.int64))
    return np.stack(vols), np.stack(masks)


def zscore_foreground(vol_u16):
    v = torch.from_numpy(vol_u16.astype(np.float32))
    fg = v > v.flatten(1).float().mean(1).view(-1, 1, 1, 1)
    out = torch.empty_like(v)
    for i in range(v.shape[0]):
        vals = v[i][fg[i]]
        out[i] = (v[i] - vals.mean()) / (vals.std() + 1e-6)
    return out.unsqueeze(1)


class ResStage(nn.Module):
    def __init__(self, ch, n_convs):
        super().__init__()
        self.convs = nn.Sequential(*[nn.Sequential(nn.Conv3d(ch, ch, 3, padding=1), nn.PReLU(ch)) for _ in range(n_convs)])

    def forward(self, x):
        return F.prelu(self.convs(x) + x, torch.tensor([0.25], dtype=x.dtype))


class TinyVNet(nn.Module):
    def __init__(self, w=8):
        super().__init__()
        self.inp = nn.Conv3d(1, w, 3, padding=1)
        self.stage1 = ResStage(w, 1)
        self.down1 = nn.Conv3d(w, 2 * w, 2, stride=2)
        self.stage2 = ResStage(2 * w, 2)
        self.up1 = nn.ConvTranspose3d(2 * w, w, 2, stride=2)
        self.stage3 = ResStage(2 * w, 1)
        self.out = nn.Conv3d(2 * w, 2, 1)

    def forward(self, x):
        s1 = self.stage1(self.inp(x))
        s2 = self.stage2(self.down1(s1))
        u = torch.cat([self.up1(s2), s1], 1)
        return self.out(self.stage3(u))


def dice_ce(logits, target):
    ce = F.cross_entropy(logits.float(), target)
    p = logits.float().softmax(1)[:, 1]
    t = target.float()
    dice = (2 * (p * t).sum() + 1) / (p.sum() + t.sum() + 1)
    return ce + 1 - dice


def main():
    model = TinyVNet().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / 8)))
    for step in range(8):
        vol, mask = make_mri_batch()
        x = zscore_foreground(vol).half()
        y = torch.from_numpy(mask)
        logits = model(x)
        loss = dice_ce(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        print(f"step {step:02d} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")
    with tempfile.TemporaryDirectory() as d:
        torch.save(model.state_dict(), f"{d}/vnet_fp16.pt")
        print("checkpoint written")


if __name__ == "__main__":
    main()
