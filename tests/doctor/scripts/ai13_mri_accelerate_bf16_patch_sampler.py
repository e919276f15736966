import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler

rng = np.random.default_rng(13)
PATCH = 12


def knee_mri(size=24):
    zz, yy, xx = np.indices((size,) * 3)
    v = rng.normal(200, 30, (size,) * 3)
    bone = ((yy - 8) ** 2 + (xx - 12) ** 2 < 30) | ((yy - 17) ** 2 + (xx - 12) ** 2 < 30)
    cart = (np.abs(yy - 12.5) < 1.5) & (np.abs(xx - 12) < 6) & (zz > 4) & (zz < 20)
    v[bone] = rng.normal(900, 60, bone.sum())
    v[cart] = rng.normal(1700, 80, cart.sum())
    lab = np.zeros((size,) * 3, np.int64)
    lab[bone], lab[cart] = 1, 2
    return v.clip(0, 65535).astype(np.uint16), lab


class PatchDataset(Dataset):
    def __init__(self, vols, n_patches=64):
        self.vols = vols
        self.centers = []
        for vi, (_, lab) in enumerate(vols):
            for _ in range(n_patches):
                c = tuple(int(rng.integers(PATCH // 2, s - PATCH // 2)) for s in lab.shape)
                self.centers.append((vi, c))

    def center_label(self, i):
        vi, c = self.centers[i]
        return int(self.vols[vi][1][c])

    def __len__(self):
        return len(self.centers)

    def __getitem__(self, i):
        vi, (z, y, x) = self.centers[i]
        vol, lab = self.vols[vi]
        sl = tuple(slice(a - PATCH // 2, a + PATCH // 2) for a in (z, y, x))
        v = vol[sl].astype(np.float32)
        v = (v - v.mean()) / max(float(v.std()), 1e-3)
        return torch.from_numpy(v)[None], torch.from_numpy(lab[sl])


class Net(nn.Module):
    def __init__(self, w=8):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv3d(1, w, 3, padding=1), nn.GroupNorm(2, w), nn.GELU(),
            nn.Conv3d(w, 2 * w, 3, padding=2, dilation=2), nn.GroupNorm(2, 2 * w), nn.GELU(),
            nn.Conv3d(2 * w, 3, 1),
        )

    def forward(self, x):
        return self.body(x)


def focal_loss(logits, target, gamma=2.0):
    logp = F.log_softmax(logits.float(), 1)
    logp_t = logp.gather(1, target[:, None])[:, 0]
    return (-(1 - logp_t.exp()) ** gamma * logp_t).mean()


def main():
    torch.manual_seed(13)
    acc = Accelerator(mixed_precision="bf16", cpu=True)
    ds = PatchDataset([knee_mri() for _ in range(3)])
    labels = np.array([ds.center_label(i) for i in range(len(ds))])
    freq = np.bincount(labels, minlength=3) + 1
    weights = (1.0 / freq)[labels]
    sampler = WeightedRandomSampler(torch.as_tensor(weights, dtype=torch.double), num_samples=96, replacement=True)
    loader = DataLoader(ds, batch_size=8, sampler=sampler)
    model = Net()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model, opt, loader = acc.prepare(model, opt, loader)
    for epoch in range(2):
        for step, (x, y) in enumerate(loader):
            with acc.autocast():
                logits = model(x)
            loss = focal_loss(logits, y)
            opt.zero_grad()
            acc.backward(loss)
            opt.step()
            if step % 4 == 0:
                acc.print(f"epoch {epoch} step {step:02d} focal {loss.item():.4f}")
    model.eval()
    vol, lab = knee_mri()
    v = torch.from_numpy(vol.astype(np.float32))
    x = ((v - v.mean()) / v.std())[None, None]
    with torch.no_grad(), acc.autocast():
        probs = sum(model(x.flip(d)).float().softmax(1).flip(d) for d in ((), (2,), (3,), (4,))) / 4
    pred = probs.argmax(1)[0]
    for c in (1, 2):
        inter = ((pred == c) & (torch.from_numpy(lab) == c)).sum().item()
        denom = (pred == c).sum().item() + (lab == c).sum()
        acc.print(f"class {c} dice {2 * inter / max(denom, 1):.3f}")
    with tempfile.TemporaryDirectory() as d:
        np.save(f"{d}/knee_pred.npy", pred.to(torch.uint8).numpy())
        acc.print("exported", tuple(pred.shape))


if __name__ == "__main__":
    main()
