import json
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(14)
rng = np.random.default_rng(14)
TILE = 32


def sar_optical_scene(h=64, w=96):
    yy, xx = np.mgrid[:h, :w]
    river = np.abs(yy - (h / 2 + 8 * np.sin(xx / 12))) < 6 + 4 * (xx > w / 2)
    vv = np.where(river, rng.gamma(2, 40, (h, w)), rng.gamma(4, 250, (h, w)))
    vh = np.where(river, rng.gamma(2, 12, (h, w)), rng.gamma(4, 80, (h, w)))
    green = np.where(river, rng.normal(900, 50, (h, w)), rng.normal(700, 50, (h, w)))
    nir = np.where(river, rng.normal(300, 40, (h, w)), rng.normal(2800, 200, (h, w)))
    bands = np.stack([vv, vh, green, nir]).clip(0, 65535).astype(np.uint16)
    return bands, river.astype(np.float32)


def features(bands):
    b = torch.from_numpy(bands.astype(np.float32))
    vv_db = 10 * torch.log10(b[0].clamp_min(1.0))
    vh_db = 10 * torch.log10(b[1].clamp_min(1.0))
    ndwi = (b[2] - b[3]) / (b[2] + b[3]).clamp_min(1.0)
    return torch.stack([(vv_db - 20) / 5, (vh_db - 15) / 5, ndwi])


def tiles(x, y):
    xs, ys = [], []
    for i in range(0, x.shape[1] - TILE + 1, TILE // 2):
        for j in range(0, x.shape[2] - TILE + 1, TILE // 2):
            xs.append(x[:, i:i + TILE, j:j + TILE])
            ys.append(y[i:i + TILE, j:j + TILE])
    return torch.stack(xs), torch.stack(ys)


class FloodNet(nn.Module):
    def __init__(self, w=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(),
                                 nn.Conv2d(w, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU())
        self.ctx = nn.Sequential(nn.Conv2d(w, w, 3, padding=4, dilation=4), nn.BatchNorm2d(w), nn.ReLU())
        self.out = nn.Conv2d(2 * w, 1, 1)

    def forward(self, x):
        e = self.enc(x)
        return self.out(torch.cat([e, self.ctx(e)], 1))[:, 0]


def main():
    model = FloodNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(6):
        bands, water = sar_optical_scene()
        x, y = tiles(features(bands), torch.from_numpy(water))
        loss = F.binary_cross_entropy_with_logits(model(x), y, pos_weight=torch.tensor(2.0))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch} bce {loss.item():.4f}")

    model.eval()
    bands, water = sar_optical_scene()
    feats = features(bands)[None]
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        prob = torch.sigmoid(model(feats))[0]
    iou = ((prob > 0.5) & (torch.from_numpy(water) > 0)).sum() / ((prob > 0.5) | (torch.from_numpy(water) > 0)).sum()
    print(f"scene IoU {iou.item():.3f} flooded fraction {(prob > 0.5).float().mean().item():.3f}")

    with tempfile.TemporaryDirectory() as d:
        prob_u8 = (prob * 255).round().numpy().astype(np.uint8)
        np.save(os.path.join(d, "flood_prob.npy"), prob_u8)
        meta = {"shape": list(prob_u8.shape), "scale": 1 / 255, "threshold": 0.5}
        with open(os.path.join(d, "flood_prob.json"), "w") as f:
            json.dump(meta, f)
        print("exported", meta)


if __name__ == "__main__":
    main()
