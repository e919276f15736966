import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
rng = np.random.default_rng(3)
PATCH = 16


def synth_ct(size=(24, 24, 32)):
    hu = rng.normal(-950, 30, size).astype(np.int16)
    zz, yy, xx = np.indices(size)
    body = ((yy - size[1] / 2) ** 2 + (xx - size[2] / 2) ** 2) < (size[1] / 2.5) ** 2
    hu[body] = rng.normal(30, 20, body.sum()).astype(np.int16)
    c = rng.integers(6, min(size) - 6, 3)
    liver = ((zz - c[0]) ** 2 + (yy - c[1]) ** 2 + (xx - c[2]) ** 2) < 25
    hu[liver] = rng.normal(110, 15, liver.sum()).astype(np.int16)
    return hu, liver.astype(np.int64)


def window(hu, level=60, width=360):
    x = torch.from_numpy(hu).float()
    return ((x - (level - width / 2)) / width).clamp_(0, 1)


def random_patch(vol, mask):
    z, y, x = (rng.integers(0, s - PATCH + 1) for s in vol.shape)
    return vol[z:z + PATCH, y:y + PATCH, x:x + PATCH], mask[z:z + PATCH, y:y + PATCH, x:x + PATCH]


class UNet3D(nn.Module):
    def __init__(self, w=8):
        super().__init__()
        conv = lambda i, o: nn.Sequential(nn.Conv3d(i, o, 3, padding=1), nn.GroupNorm(4, o), nn.SiLU())
        self.e1, self.e2 = conv(1, w), conv(w, 2 * w)
        self.up = nn.ConvTranspose3d(2 * w, w, 2, stride=2)
        self.d1 = conv(2 * w, w)
        self.head = nn.Conv3d(w, 2, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(F.max_pool3d(a, 2))
        return self.head(self.d1(torch.cat([self.up(b), a], 1)))


def dice_loss(logits, target, eps=1e-6):
    p = logits.float().softmax(1)[:, 1]
    t = target.float()
    return 1 - (2 * (p * t).sum() + eps) / (p.sum() + t.sum() + eps)


def gaussian_importance(size, sigma_scale=1 / 8):
    coords = torch.arange(size, dtype=torch.float32) - (size - 1) / 2
    g1 = torch.exp(-coords ** 2 / (2 * (size * sigma_scale) ** 2))
    g = g1[:, None, None] * g1[None, :, None] * g1[None, None, :]
    g = g / g.max()
    return g.clamp_min(g[g > 0].min())


@torch.no_grad()
def sliding_window(model, vol, step=8):
    out = torch.zeros((2,) + vol.shape)
    norm = torch.zeros(vol.shape)
    gw = gaussian_importance(PATCH)
    for z in range(0, vol.shape[0] - PATCH + 1, step):
        for y in range(0, vol.shape[1] - PATCH + 1, step):
            for x in range(0, vol.shape[2] - PATCH + 1, step):
                tile = vol[z:z + PATCH, y:y + PATCH, x:x + PATCH][None, None]
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    probs = model(tile).float().softmax(1)[0]
                out[:, z:z + PATCH, y:y + PATCH, x:x + PATCH] += probs * gw
                norm[z:z + PATCH, y:y + PATCH, x:x + PATCH] += gw
    return out / norm


def main():
    model = UNet3D()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    cases = [synth_ct() for _ in range(4)]
    for step in range(16):
        xs, ys = zip(*(random_patch(window(hu), torch.from_numpy(m)) for hu, m in (cases[i % 4] for i in range(step, step + 4))))
        x, y = torch.stack(xs)[:, None], torch.stack(ys)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float(), y) + dice_loss(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 3 == 0:
            print(f"step {step:02d} loss {loss.item():.4f}")
    model.eval()
    hu, m = synth_ct()
    probs = sliding_window(model, window(hu))
    pred = probs.argmax(0)
    gt = torch.from_numpy(m)
    dice = (2 * ((pred == 1) & (gt == 1)).sum() / ((pred == 1).sum() + (gt == 1).sum()).clamp_min(1)).item()
    print(f"val dice {dice:.4f} mean fg prob {probs[1].mean().item():.4f}")
    with tempfile.TemporaryDirectory() as d:
        np.save(f"{d}/pred_mask.npy", pred.to(torch.uint8).numpy())
        print("mask exported", pred.shape)


if __name__ == "__main__":
    main()
