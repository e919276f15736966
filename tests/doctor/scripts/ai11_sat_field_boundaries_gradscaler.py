import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(11)
rng = np.random.default_rng(11)
SIZE = 32


def sentinel_tiles(n):
    tiles = np.zeros((n, 4, SIZE, SIZE), np.uint16)
    bound = np.zeros((n, SIZE, SIZE), np.float32)
    for i in range(n):
        xs = np.sort(rng.choice(np.arange(4, SIZE - 4), 2, replace=False))
        ys = np.sort(rng.choice(np.arange(4, SIZE - 4), 2, replace=False))
        parcel = np.zeros((SIZE, SIZE), np.int64)
        parcel[ys[0]:, :] += 1
        parcel[:, xs[0]:] += 2
        crop_nir = rng.uniform(1500, 4500, 4)
        for b, base in enumerate((500, 700, 600)):
            tiles[i, b] = np.clip(base + rng.normal(0, 40, (SIZE, SIZE)), 0, 10000)
        tiles[i, 3] = np.clip(crop_nir[parcel] + rng.normal(0, 80, (SIZE, SIZE)), 0, 10000)
        edge = np.zeros((SIZE, SIZE), bool)
        edge[ys[0] - 1:ys[0] + 1, :] = True
        edge[:, xs[0] - 1:xs[0] + 1] = True
        bound[i] = edge
    return tiles, bound


def to_input(tiles):
    t = torch.from_numpy(tiles.astype(np.float32))
    red, nir = t[:, 2], t[:, 3]
    ndvi = (nir - red) / (nir + red).clamp_min(1.0)
    refl = t / 10000.0
    return torch.cat([refl, ndvi[:, None]], 1)


class BoundaryNet(nn.Module):
    def __init__(self, cin=5, w=16):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(cin, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
                                  nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU())
        self.up = nn.Sequential(nn.ConvTranspose2d(2 * w, w, 2, stride=2), nn.BatchNorm2d(w), nn.ReLU())
        self.edge = nn.Conv2d(2 * w, 1, 1)
        self.stem = nn.Conv2d(cin, w, 1)

    def forward(self, x):
        return self.edge(torch.cat([self.up(self.down(x)), self.stem(x)], 1))[:, 0]


def tversky_loss(logits, target, alpha=0.3, beta=0.7, smooth=1.0):
    p = torch.sigmoid(logits.float())
    tp = (p * target).sum()
    fp = (p * (1 - target)).sum()
    fn = ((1 - p) * target).sum()
    return 1 - (tp + smooth) / (tp + alpha * fp + beta * fn + smooth)


def main():
    model = BoundaryNet().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    pos_weight = torch.tensor(8.0)
    for step in range(20):
        tiles, bound = sentinel_tiles(8)
        x = to_input(tiles).half()
        y = torch.from_numpy(bound)
        logits = model(x)
        loss = F.binary_cross_entropy_with_logits(logits.float(), y, pos_weight=pos_weight) + tversky_loss(logits, y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        if step % 4 == 0:
            print(f"step {step:02d} loss {loss.item():.4f} grad_norm {gn.item():.3f} scale {scaler.get_scale():.0f}")


if __name__ == "__main__":
    main()
