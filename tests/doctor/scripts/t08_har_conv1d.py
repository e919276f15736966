"""1D-CNN activity recognition on accelerometer windows built with numpy."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_windows(n=256, length=128, channels=3, seed=0):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 4 * np.pi, length)
    labels = rng.integers(0, 4, size=n)
    freq = 1.0 + labels[:, None, None]
    phase = rng.uniform(0, np.pi, size=(n, channels, 1))
    x = np.sin(freq * t[None, None, :] + phase) + 0.3 * rng.normal(size=(n, channels, length))
    x = (x - x.mean(axis=(0, 2), keepdims=True)) / x.std(axis=(0, 2), keepdims=True)
    return x, labels


class HARNet(nn.Module):
    def __init__(self, channels=3, n_cls=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(channels, 32, 7, padding=3), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.classifier = nn.Linear(64, n_cls)

    def forward(self, x):
        return self.classifier(self.features(x).squeeze(-1))


X, Y = make_windows()
X_t = torch.tensor(X)
Y_t = torch.tensor(Y, dtype=torch.long)

model = HARNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    perm = torch.randperm(len(X_t))
    for i in range(0, len(X_t), 64):
        idx = perm[i:i + 64]
        logits = model(X_t[idx])
        loss = F.cross_entropy(logits, Y_t[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
