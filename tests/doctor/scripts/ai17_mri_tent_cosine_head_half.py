import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(17)
rng = np.random.default_rng(17)
SIZE = 40
TISSUES = ["background", "csf", "grey", "white"]


def scanner_slices(n, gain=1.0, bias_field=0.0):
    yy, xx = np.mgrid[:SIZE, :SIZE]
    imgs = np.zeros((n, SIZE, SIZE), np.uint16)
    labs = np.zeros((n, SIZE, SIZE), np.int64)
    for i in range(n):
        r = np.sqrt(((yy - 20) / 17) ** 2 + ((xx - 20) / 14) ** 2) + rng.normal(0, 0.03, (SIZE, SIZE))
        lab = np.select([r < 0.15, r < 0.55, r < 1.0], [1, 3, 2], 0)
        means = np.array([15, 1800, 900, 1300])
        img = means[lab] * rng.normal(1, 0.06, (SIZE, SIZE))
        img *= gain * (1 + bias_field * (xx - 20) / 20)
        imgs[i], labs[i] = img.clip(0, 4095), lab
    return imgs, labs


def zscore(imgs):
    x = torch.from_numpy(imgs.astype(np.float32))[:, None]
    return (x - x.mean((2, 3), keepdim=True)) / x.std((2, 3), keepdim=True)


class CosineSegNet(nn.Module):
    def __init__(self, w=16, ncls=len(TISSUES), scale=64.0):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, w, 3, padding=2, dilation=2), nn.BatchNorm2d(w), nn.ReLU(),
            nn.Conv2d(w, w, 3, padding=1), nn.BatchNorm2d(w),
        )
        self.prototypes = nn.Parameter(torch.randn(ncls, w))
        self.scale = scale

    def forward(self, x):
        f = F.normalize(self.body(x), dim=1)
        p = F.normalize(self.prototypes, dim=1)
        return self.scale * torch.einsum("bchw,kc->bkhw", f, p)


def entropy(logits):
    p = logits.softmax(1)
    return -(p * torch.log(p)).sum(1).mean()


def configure_tent(model):
    model.train()
    params = []
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.track_running_stats = False
            m.running_mean, m.running_var = None, None
            params += [m.weight, m.bias]
        else:
            for p in m.parameters(recurse=False):
                p.requires_grad_(False)
    model.prototypes.requires_grad_(False)
    return params


def main():
    model = CosineSegNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(12):
        imgs, labs = scanner_slices(6)
        loss = F.cross_entropy(model(zscore(imgs)), torch.from_numpy(labs))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 4 == 0:
            print(f"source step {step:02d} ce {loss.item():.4f}")

    tta = copy.deepcopy(model).half()
    params = configure_tent(tta)
    tta_opt = torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    for it in range(6):
        imgs, labs = scanner_slices(6, gain=1.4, bias_field=0.3)
        x = zscore(imgs).half()
        logits = tta(x)
        loss = entropy(logits)
        tta_opt.zero_grad()
        loss.backward()
        tta_opt.step()
        acc = (logits.argmax(1) == torch.from_numpy(labs)).float().mean()
        print(f"tent iter {it} entropy {loss.item():.4f} pixel acc {acc.item():.3f}")


if __name__ == "__main__":
    main()
