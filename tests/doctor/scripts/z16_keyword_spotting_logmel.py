import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SR = 8000
KEYWORDS = ["yes", "no", "up", "down", "left", "right"]


class SyntheticKeywords(Dataset):
    """Each keyword is a pair of tone glides; clips have random length and noise."""

    def __init__(self, n=600, seed=0):
        rng = np.random.default_rng(seed)
        self.clips, self.labels = [], []
        for _ in range(n):
            k = int(rng.integers(len(KEYWORDS)))
            dur = rng.uniform(0.4, 0.7)
            t = np.arange(int(dur * SR)) / SR
            f0, f1 = 300 + 150 * k, 900 - 100 * k
            sweep = np.sin(2 * np.pi * (f0 + (f1 - f0) * t / dur / 2) * t)
            clip = 0.5 * sweep + 0.05 * rng.normal(size=t.shape)
            self.clips.append(clip.astype(np.float16))
            self.labels.append(k)

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        return self.clips[i], self.labels[i]


def pad_collate(batch):
    max_len = max(len(c) for c, _ in batch)
    waves = np.zeros((len(batch), max_len), dtype=batch[0][0].dtype)
    for i, (c, _) in enumerate(batch):
        waves[i, :len(c)] = c
    return torch.from_numpy(waves), torch.tensor([y for _, y in batch])


def mel_filterbank(n_fft, n_mels, sr):
    def hz_to_mel(f):
        return 2595 * math.log10(1 + f / 700)
    mels = torch.linspace(hz_to_mel(0), hz_to_mel(sr / 2), n_mels + 2)
    hz = 700 * (10 ** (mels / 2595) - 1)
    bins = torch.floor((n_fft + 1) * hz / sr).long()
    fb = torch.zeros(n_mels, n_fft // 2 + 1)
    for m in range(1, n_mels + 1):
        l, c, r = bins[m - 1].item(), bins[m].item(), bins[m + 1].item()
        for k in range(l, c):
            fb[m - 1, k] = (k - l) / max(c - l, 1)
        for k in range(c, r):
            fb[m - 1, k] = (r - k) / max(r - c, 1)
    return fb


class LogMel(nn.Module):
    def __init__(self, n_fft=256, hop=80, n_mels=32):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("fb", mel_filterbank(n_fft, n_mels, SR))

    def forward(self, wave):
        window = torch.hann_window(self.n_fft, device=wave.device, dtype=wave.dtype)
        spec = torch.stft(wave, self.n_fft, self.hop, window=window, return_complex=True).abs() ** 2
        return torch.log(self.fb @ spec + 1e-6)


class KWSNet(nn.Module):
    def __init__(self, classes=len(KEYWORDS)):
        super().__init__()
        self.frontend = LogMel()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, classes))

    def forward(self, wave):
        feats = self.frontend(wave).unsqueeze(1)
        return self.net(feats)


def main():
    torch.manual_seed(0)
    train = DataLoader(SyntheticKeywords(), batch_size=32, shuffle=True, collate_fn=pad_collate)
    model = KWSNet()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    for epoch in range(4):
        total, correct, seen = 0.0, 0, 0
        for wave, y in train:
            logits = model(wave)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            seen += len(y)
        sched.step(total / seen)
        print(f"epoch {epoch} loss {total / seen:.4f} acc {correct / seen:.3f}")


if __name__ == "__main__":
    main()
