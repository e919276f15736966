import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(16)
rng = np.random.default_rng(16)
S2_BANDS = ["B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B11", "B12"]
RGB_IDX = [2, 1, 0]
SIZE = 32
N_CLASSES = 4


def s2_patches(n):
    x = np.zeros((n, len(S2_BANDS), SIZE, SIZE), np.uint16)
    y = np.zeros((n, SIZE, SIZE), np.int64)
    sig = rng.uniform(300, 4000, (N_CLASSES, len(S2_BANDS)))
    for i in range(n):
        lab = np.zeros((SIZE, SIZE), np.int64)
        for c in range(1, N_CLASSES):
            y0, x0 = rng.integers(0, SIZE - 10, 2)
            lab[y0:y0 + int(rng.integers(6, 14)), x0:x0 + int(rng.integers(6, 14))] = c
        x[i] = np.clip(sig[lab].transpose(2, 0, 1) * rng.normal(1, 0.08, (len(S2_BANDS), SIZE, SIZE)), 0, 10000)
        y[i] = lab
    return x, y


BAND_MEAN = np.full(len(S2_BANDS), 2000.0, np.float32)
BAND_STD = np.full(len(S2_BANDS), 1100.0, np.float32)


def normalise(x):
    return torch.from_numpy((x.astype(np.float32) - BAND_MEAN[:, None, None]) / BAND_STD[:, None, None])


class RGBNet(nn.Module):
    def __init__(self, cin=3, w=24):
        super().__init__()
        self.stem = nn.Conv2d(cin, w, 3, padding=1)
        self.body = nn.Sequential(nn.BatchNorm2d(w), nn.ReLU(), nn.Conv2d(w, w, 3, padding=1),
                                  nn.BatchNorm2d(w), nn.ReLU(), nn.Conv2d(w, w, 3, padding=2, dilation=2), nn.ReLU())
        self.head = nn.Conv2d(w, N_CLASSES, 1)

    def forward(self, x):
        return self.head(self.body(self.stem(x)))


def expand_stem(model, n_bands, rgb_idx):
    old = model.stem
    new = nn.Conv2d(n_bands, old.out_channels, 3, padding=1)
    with torch.no_grad():
        new.weight.normal_(0, 0.01)
        new.weight[:, rgb_idx] = old.weight
        new.bias.copy_(old.bias)
    model.stem = new
    return model


def main():
    model = expand_stem(RGBNet(), len(S2_BANDS), RGB_IDX)
    model = model.to(torch.bfloat16)

    grad_mask = torch.ones_like(model.stem.weight, dtype=torch.float32)
    grad_mask[:, RGB_IDX] = 0.1
    model.stem.weight.register_hook(lambda g: g * grad_mask)

    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(15):
        xb, yb = s2_patches(8)
        x = normalise(xb).to(torch.bfloat16)
        y = torch.from_numpy(yb)
        logits = model(x)
        loss = F.cross_entropy(logits.float(), y, label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 3 == 0:
            miou = []
            pred = logits.argmax(1)
            for c in range(N_CLASSES):
                inter, union = ((pred == c) & (y == c)).sum(), ((pred == c) | (y == c)).sum()
                if union > 0:
                    miou.append((inter / union).item())
            print(f"step {step:02d} loss {loss.item():.4f} mIoU {np.mean(miou):.3f}")


if __name__ == "__main__":
    main()
