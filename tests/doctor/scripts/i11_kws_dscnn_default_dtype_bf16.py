"""Keyword spotting with a depthwise-separable CNN (DS-CNN) on NumPy log-mel features
stored in a datasets.Dataset.  The default dtype is switched to bfloat16 so that every
parameter is created in bf16 (halves memory on the edge training box)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from torch.utils.data import DataLoader

torch.set_default_dtype(torch.bfloat16)
torch.manual_seed(0)
rng = np.random.default_rng(0)

SR, N_FFT, HOP, N_MELS = 16000, 480, 160, 40
KEYWORDS = ["yes", "no", "up", "down", "_silence_", "_unknown_"]


def mel_fb():
    hz2mel = lambda f: 2595 * np.log10(1 + f / 700)
    mel2hz = lambda m: 700 * (10 ** (m / 2595) - 1)
    hz = mel2hz(np.linspace(hz2mel(20), hz2mel(4000), N_MELS + 2))
    f = np.fft.rfftfreq(N_FFT, 1 / SR)
    lo = (f[None] - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None])
    hi = (hz[2:, None] - f[None]) / (hz[2:, None] - hz[1:-1, None])
    return np.clip(np.minimum(lo, hi), 0, None)


FB = mel_fb()


def log_mel_np(wave):
    frames = np.lib.stride_tricks.sliding_window_view(wave, N_FFT)[::HOP] * np.hanning(N_FFT)
    power = np.abs(np.fft.rfft(frames, axis=-1)) ** 2
    return np.log(power @ FB.T + 1e-6).astype(np.float32)  # (T, n_mels)


def keyword_audio(k):
    t = np.arange(SR) / SR
    if KEYWORDS[k] == "_silence_":
        return 0.01 * rng.standard_normal(SR)
    f1 = 300 + 150 * k + rng.normal(0, 10)
    f2 = 1200 + 250 * k + rng.normal(0, 20)
    env = np.exp(-((t - 0.5) ** 2) / 0.02)
    sweep = np.sin(2 * np.pi * (f1 * t + 40 * k * t ** 2)) + 0.5 * np.sin(2 * np.pi * f2 * t)
    return env * sweep * 0.3 + 0.01 * rng.standard_normal(SR)


def build_split(n):
    labels = rng.integers(0, len(KEYWORDS), size=n)
    feats = [log_mel_np(keyword_audio(int(k))) for k in labels]
    return Dataset.from_dict({"features": feats, "label": labels.tolist()})


train = build_split(96).with_format("torch")
valid = build_split(24).with_format("torch")


class DSBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.pw = nn.Conv2d(c, c, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        x = F.relu(self.bn1(self.dw(x)))
        return F.relu(self.bn2(self.pw(x)))


class DSCNN(nn.Module):
    def __init__(self, c=32, n_cls=len(KEYWORDS)):
        super().__init__()
        self.stem = nn.Conv2d(1, c, (10, 4), stride=(2, 2), padding=(5, 1))
        self.bn = nn.BatchNorm2d(c)
        self.blocks = nn.Sequential(*[DSBlock(c) for _ in range(3)])
        self.fc = nn.Linear(c, n_cls)

    def forward(self, x):
        x = F.relu(self.bn(self.stem(x.unsqueeze(1))))
        x = self.blocks(x)
        return self.fc(x.mean(dim=(2, 3)))


model = DSCNN()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
train_loader = DataLoader(train, batch_size=16, shuffle=True)

for epoch in range(3):
    model.train()
    for batch in train_loader:
        x, y = batch["features"], batch["label"]
        x = (x - x.mean(dim=(1, 2), keepdim=True)) / (x.std(dim=(1, 2), keepdim=True) + 1e-5)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        xv = valid[:]["features"]
        xv = (xv - xv.mean(dim=(1, 2), keepdim=True)) / (xv.std(dim=(1, 2), keepdim=True) + 1e-5)
        acc = (model(xv).argmax(-1) == valid[:]["label"]).float().mean()
    print(f"epoch {epoch} loss {loss.item():.3f} valid acc {acc.item():.3f}")
