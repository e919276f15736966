import glob
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import IterableDataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(18)
ACTIVITIES = ["walk", "run", "sit", "stairs", "cycle"]
WIN, CH = 64, 3
SHARD_DIR = tempfile.mkdtemp(prefix="har_shards_")


def record_session(n_windows):
    """Raw tri-axial accelerometer in milli-g, as exported by the wearable."""
    act = rng.integers(0, len(ACTIVITIES), n_windows)
    t = np.arange(WIN) / 32.0
    freq = np.array([1.8, 2.8, 0.0, 1.2, 1.5])[act]
    amp = np.array([300, 700, 20, 400, 250])[act]
    wave = amp[:, None] * np.sin(2 * np.pi * freq[:, None] * t[None] + rng.uniform(0, 6, (n_windows, 1)))
    x = np.stack([wave, 0.5 * wave, 0.3 * wave], axis=-1) + rng.normal(0, 30, (n_windows, WIN, CH))
    x[..., 2] += 1000.0
    return x, act


for s in range(6):
    x, y = record_session(400)
    np.save(os.path.join(SHARD_DIR, f"session{s}_x.npy"), x.astype(np.float16))
    np.save(os.path.join(SHARD_DIR, f"session{s}_y.npy"), y)


class ShardStream(IterableDataset):
    def __init__(self, folder, sessions):
        self.x_files = [f for f in sorted(glob.glob(os.path.join(folder, "*_x.npy")))
                        if int(os.path.basename(f)[7]) in sessions]

    def __iter__(self):
        for xf in self.x_files:
            x, y = np.load(xf), np.load(xf.replace("_x.npy", "_y.npy"))
            for i in rng.permutation(len(y)):
                yield torch.from_numpy(x[i]), int(y[i])


def channel_stats(loader):
    total, total_sq, count = None, None, 0
    for xb, _ in loader:
        if total is None:
            total, total_sq = xb.new_zeros(CH), xb.new_zeros(CH)
        total += xb.sum(dim=(0, 1))
        total_sq += (xb * xb).sum(dim=(0, 1))
        count += xb.shape[0] * xb.shape[1]
    mean = total / count
    std = (total_sq / count - mean ** 2).clamp_min(1e-6).sqrt()
    return mean, std


class HARNet(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", mean.float())
        self.register_buffer("std", std.float())
        self.conv = nn.Sequential(nn.Conv1d(CH, 32, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
                                  nn.Conv1d(32, 64, 5, padding=2), nn.ReLU())
        self.fc = nn.Linear(64, len(ACTIVITIES))

    def forward(self, x):
        x = (x.float() - self.mean) / self.std
        return self.fc(self.conv(x.transpose(1, 2)).mean(-1))


train_dl = DataLoader(ShardStream(SHARD_DIR, {0, 1, 2, 3, 4}), batch_size=128)
val_dl = DataLoader(ShardStream(SHARD_DIR, {5}), batch_size=400)
mean, std = channel_stats(train_dl)
print("channel mean", mean.tolist(), "std", std.tolist())

model = HARNet(mean, std)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(4):
    losses = []
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        xb, yb = next(iter(val_dl))
        acc = (model(xb).argmax(1) == yb).float().mean().item()
    print(f"epoch {epoch} loss {np.mean(losses):.4f} val_acc {acc:.3f}")
