import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class AccelerometerWindows(Dataset):
    """Synthetic 3-axis accelerometer windows from 6 activities."""

    def __init__(self, n=2048, length=64, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, 6, (n,), generator=g)
        t = torch.linspace(0, 1, length)
        freq = (self.labels.float() + 1).view(-1, 1, 1) * torch.tensor([2.0, 3.0, 1.0]).view(1, 3, 1)
        phase = torch.rand(n, 3, 1, generator=g) * 2 * math.pi
        self.x = torch.sin(2 * math.pi * freq * t + phase) + 0.2 * torch.randn(n, 3, length, generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.labels[i]


def augment(x):
    scale = 1 + 0.2 * torch.randn(x.size(0), 3, 1)
    shift = torch.randint(-8, 9, (1,)).item()
    x = torch.roll(x * scale, shifts=shift, dims=-1)
    return x + 0.05 * torch.randn_like(x)


class Encoder(nn.Module):
    def __init__(self, width=32, proj=32):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv1d(3, width, 7, padding=3), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 5, padding=2, stride=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.projector = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, proj))

    def forward(self, x):
        return self.projector(self.backbone(x))


def nt_xent(z1, z2, temperature=0.05):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = z1.size(0)
    sim = torch.exp(z @ z.T / temperature)
    mask = ~torch.eye(2 * n, dtype=torch.bool)
    pos = torch.cat([torch.diagonal(sim, n), torch.diagonal(sim, -n)])
    denom = (sim * mask).sum(dim=1)
    return -torch.log(pos / denom).mean()


@torch.no_grad()
def centroid_probe_acc(model, ds, n=1024):
    feats = F.normalize(model.backbone(ds.x[:n]).float(), dim=1)
    labels = ds.labels[:n]
    centroids = torch.stack([feats[labels == c].mean(0) for c in range(6)])
    return ((feats @ centroids.T).argmax(1) == labels).float().mean().item()


def main():
    torch.manual_seed(0)
    ds = AccelerometerWindows()
    loader = DataLoader(ds, batch_size=128, shuffle=True, drop_last=True)
    model = Encoder()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    warmup = 10
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup))
    for epoch in range(3):
        for x, _ in loader:
            with torch.autocast("cpu", dtype=torch.float16):
                loss = nt_xent(model(augment(x)), model(augment(x)))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 3.0)
            opt.step()
            sched.step()
        model.eval()
        print(f"epoch {epoch} contrastive loss {loss.item():.4f} probe acc {centroid_probe_acc(model, ds):.3f}")
        model.train()


if __name__ == "__main__":
    main()
