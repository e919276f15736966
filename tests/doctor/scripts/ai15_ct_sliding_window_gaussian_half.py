import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(15)
rng = np.random.default_rng(15)
PATCH, STEP = 16, 8
SPACING_MM = (2.0, 1.5, 1.5)


def kidney_ct(shape=(32, 32, 32)):
    zz, yy, xx = np.indices(shape)
    hu = rng.normal(35, 20, shape)
    kid = ((zz - 16) / 9) ** 2 + ((yy - 16) / 7) ** 2 + ((xx - 12) / 5) ** 2 < 1
    c = (16 + rng.integers(-3, 4), 16 + rng.integers(-2, 3), 12)
    tum = (zz - c[0]) ** 2 + (yy - c[1]) ** 2 + (xx - c[2]) ** 2 < 9
    hu[kid] = rng.normal(160, 20, kid.sum())
    hu[tum] = rng.normal(60, 15, tum.sum())
    lab = kid.astype(np.int64) + (tum & kid)
    return hu.astype(np.int16), lab


def preprocess(hu):
    x = torch.from_numpy(hu.astype(np.float32)).clamp(-80, 300)
    return (x - 100.0) / 80.0


class SegNet3D(nn.Module):
    def __init__(self, w=8):
        super().__init__()
        blk = lambda i, o: nn.Sequential(nn.Conv3d(i, o, 3, padding=1), nn.InstanceNorm3d(o, affine=True), nn.LeakyReLU(0.01))
        self.a, self.b = blk(1, w), blk(w, 2 * w)
        self.up, self.c = nn.ConvTranspose3d(2 * w, w, 2, 2), blk(2 * w, w)
        self.head = nn.Conv3d(w, 3, 1)

    def forward(self, x):
        a = self.a(x)
        return self.head(self.c(torch.cat([self.up(self.b(F.max_pool3d(a, 2))), a], 1)))


def gaussian_importance(size, sigma_scale=1 / 8):
    center = (size - 1) / 2
    sigma = size * sigma_scale
    ax = torch.exp(-((torch.arange(size) - center) ** 2) / (2 * sigma ** 2))
    g = ax[:, None, None] * ax[None, :, None] * ax[None, None, :]
    return g / g.max()


@torch.no_grad()
def predict_sliding(model, vol, dtype):
    weight = gaussian_importance(PATCH).to(dtype)
    acc = torch.zeros((3,) + vol.shape, dtype=dtype)
    norm = torch.zeros(vol.shape, dtype=dtype)
    starts = [range(0, s - PATCH + 1, STEP) for s in vol.shape]
    for z in starts[0]:
        for y in starts[1]:
            for x in starts[2]:
                sl = (slice(z, z + PATCH), slice(y, y + PATCH), slice(x, x + PATCH))
                p = model(vol[sl][None, None].to(dtype)).softmax(1)[0]
                acc[(slice(None),) + sl] += p * weight
                norm[sl] += weight
    return acc / norm


def main():
    model = SegNet3D()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(10):
        hu, lab = kidney_ct()
        x, y = preprocess(hu), torch.from_numpy(lab)
        z0, y0, x0 = (int(rng.integers(0, 32 - PATCH + 1)) for _ in range(3))
        sl = (slice(z0, z0 + PATCH), slice(y0, y0 + PATCH), slice(x0, x0 + PATCH))
        loss = F.cross_entropy(model(x[sl][None, None]), y[sl][None])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 3 == 0:
            print(f"train step {step} ce {loss.item():.4f}")

    with tempfile.TemporaryDirectory() as d:
        torch.save(model.state_dict(), os.path.join(d, "kits_fold0.pt"))
        infer = SegNet3D()
        infer.load_state_dict(torch.load(os.path.join(d, "kits_fold0.pt")))
        infer = infer.half().eval()
        hu, lab = kidney_ct()
        probs = predict_sliding(infer, preprocess(hu), torch.float16).float()
        pred = probs.argmax(0)
        voxel_ml = np.prod(SPACING_MM) / 1000
        print(f"kidney+tumour volume {((pred > 0).sum().item() * voxel_ml):.2f} ml, "
              f"mean tumour prob {probs[2].mean().item():.4f}, mean kidney prob {probs[1].mean().item():.4f}")
        np.save(os.path.join(d, "case_pred.npy"), pred.to(torch.uint8).numpy())


if __name__ == "__main__":
    main()
