import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(0)

WINDOW = {"level": 40, "width": 400}


class SyntheticCTDataset(Dataset):
    def __init__(self, n=12, size=24):
        self.n, self.size = n, size

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        s = self.size
        hu = rng.normal(-900, 40, (s, s, s)).astype(np.int16)
        zz, yy, xx = np.mgrid[:s, :s, :s]
        c = rng.integers(8, s - 8, 3)
        organ = (zz - c[0]) ** 2 + (yy - c[1]) ** 2 + (xx - c[2]) ** 2 < 36
        hu[organ] = rng.normal(60, 15, organ.sum()).astype(np.int16)
        return hu, organ.astype(np.int64)


def window_collate(batch):
    lo = WINDOW["level"] - WINDOW["width"] / 2
    hi = WINDOW["level"] + WINDOW["width"] / 2
    vols, masks = [], []
    for hu, mask in batch:
        v = np.clip((hu - lo) / (hi - lo), 0.0, 1.0)
        vols.append(v[None])
        masks.append(mask)
    return torch.from_numpy(np.stack(vols)), torch.from_numpy(np.stack(masks))


def block(cin, cout):
    return nn.Sequential(
        nn.Conv3d(cin, cout, 3, padding=1), nn.InstanceNorm3d(cout, affine=True), nn.LeakyReLU(0.01),
        nn.Conv3d(cout, cout, 3, padding=1), nn.InstanceNorm3d(cout, affine=True), nn.LeakyReLU(0.01),
    )


class UNet3D(nn.Module):
    def __init__(self, cin=1, ncls=2, w=8):
        super().__init__()
        self.enc1 = block(cin, w)
        self.enc2 = block(w, 2 * w)
        self.bott = block(2 * w, 4 * w)
        self.up2 = nn.ConvTranspose3d(4 * w, 2 * w, 2, stride=2)
        self.dec2 = block(4 * w, 2 * w)
        self.up1 = nn.ConvTranspose3d(2 * w, w, 2, stride=2)
        self.dec1 = block(2 * w, w)
        self.head = nn.Conv3d(w, ncls, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool3d(e1, 2))
        b = self.bott(F.max_pool3d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


def soft_dice_loss(logits, target, eps=1e-5):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, probs.shape[1]).permute(0, 4, 1, 2, 3).float()
    dims = (0, 2, 3, 4)
    inter = (probs * onehot).sum(dims)
    denom = probs.sum(dims) + onehot.sum(dims)
    return 1 - ((2 * inter + eps) / (denom + eps)).mean()


def main():
    loader = DataLoader(SyntheticCTDataset(), batch_size=2, shuffle=True, collate_fn=window_collate)
    model = UNet3D()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    for epoch in range(2):
        model.train()
        for step, (vol, mask) in enumerate(loader):
            logits = model(vol)
            loss = F.cross_entropy(logits, mask) + soft_dice_loss(logits, mask)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if step % 2 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    with tempfile.TemporaryDirectory() as d:
        torch.save(model.state_dict(), f"{d}/unet3d_ct.pt")
        print("saved checkpoint to", d)


if __name__ == "__main__":
    main()
