import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader, WeightedRandomSampler

torch.manual_seed(0)
rng = np.random.default_rng(6)
FINDINGS = ["atelectasis", "cardiomegaly", "effusion", "nodule", "pneumothorax"]
PREVALENCE = np.array([0.20, 0.10, 0.25, 0.05, 0.04])


def synth_study(findings):
    yy, xx = np.mgrid[0:64, 0:64] / 64.0
    img = 90 + 60 * np.exp(-((xx - 0.5) ** 2) / 0.08) + rng.normal(0, 8, (64, 64))
    for j in np.flatnonzero(findings):
        cy, cx = 0.2 + 0.15 * j, 0.3 + 0.1 * j
        img += 50 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 0.004)
    return np.clip(img, 0, 255).astype(np.uint8)


class ChestXrays(Dataset):
    def __init__(self, n):
        self.targets = []
        self.images = []
        for _ in range(n):
            multi_hot = np.zeros(len(FINDINGS), dtype=np.int64)
            multi_hot[rng.random(len(FINDINGS)) < PREVALENCE] = 1
            self.targets.append(multi_hot)
            self.images.append(synth_study(multi_hot))
        self.targets = np.stack(self.targets)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = torch.from_numpy(self.images[i]).float().div(255.0).unsqueeze(0)
        img = (img - 0.45) / 0.25
        return img, torch.from_numpy(self.targets[i])


class XrayNet(nn.Module):
    def __init__(self, n_out):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 5, 2, 2), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU())
        self.head = nn.Linear(64, n_out)

    def forward(self, x):
        return self.head(self.backbone(x).mean((2, 3)))


train_ds, val_ds = ChestXrays(800), ChestXrays(200)
pos_counts = train_ds.targets.sum(0)
pos_weight = torch.tensor((len(train_ds) - pos_counts) / np.maximum(pos_counts, 1), dtype=torch.float32)
any_finding = train_ds.targets.any(1)
sample_w = np.where(any_finding, 1.0 / any_finding.mean(), 1.0 / (1 - any_finding.mean()))
sampler = WeightedRandomSampler(sample_w, num_samples=len(train_ds), replacement=True)
train_dl = DataLoader(train_ds, batch_size=32, sampler=sampler, num_workers=2)
val_dl = DataLoader(val_ds, batch_size=100)

model = XrayNet(len(FINDINGS))
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)

for epoch in range(3):
    model.train()
    for x, y in train_dl:
        loss = criterion(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    probs, ys = [], []
    with torch.no_grad():
        for x, y in val_dl:
            probs.append(torch.sigmoid(model(x)).numpy())
            ys.append(y.numpy())
    probs, ys = np.concatenate(probs), np.concatenate(ys)
    pred = probs > 0.5
    tp = (pred & (ys == 1)).sum(0)
    f1 = 2 * tp / np.maximum(pred.sum(0) + ys.sum(0), 1)
    print(f"epoch {epoch} loss {loss.item():.4f} " + " ".join(f"{n[:5]}={v:.2f}" for n, v in zip(FINDINGS, f1)))
