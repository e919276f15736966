import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(5)
SR = 8000
KEYWORDS = ["yes", "no", "up", "down", "stop", "go"]


def synth_clip(k):
    """Fake 1 s PCM16 recording: a keyword-specific chirp plus room noise."""
    t = np.arange(SR) / SR
    f0, f1 = 300 + 150 * k, 900 + 120 * k
    start = rng.uniform(0.1, 0.4)
    env = np.exp(-((t - start - 0.25) ** 2) / 0.01)
    phase = 2 * np.pi * (f0 * t + (f1 - f0) * t ** 2 / 2)
    gain = rng.uniform(6000, 20000)
    wav = gain * env * np.sin(phase) + rng.normal(0, 300, SR)
    return np.clip(wav, -32768, 32767).astype(np.int16)


class KeywordClips(Dataset):
    def __init__(self, n):
        self.labels = rng.integers(0, len(KEYWORDS), n)
        self.clips = [synth_clip(k) for k in self.labels]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.clips[i], self.labels[i]


def collate(batch):
    wavs, labels = zip(*batch)
    wav = torch.from_numpy(np.stack(wavs)).to(torch.float16)
    return wav, torch.as_tensor(np.array(labels), dtype=torch.long)


class LogSpectrogram(nn.Module):
    def __init__(self, frame=256, hop=128, n_bins=64):
        super().__init__()
        self.frame, self.hop = frame, hop
        n = torch.arange(frame, dtype=torch.float32)
        k = torch.arange(n_bins, dtype=torch.float32) * (frame // 2) / n_bins
        ang = 2 * math.pi * n[:, None] * k[None, :] / frame
        self.register_buffer("window", torch.hann_window(frame))
        self.register_buffer("dft_cos", torch.cos(ang))
        self.register_buffer("dft_sin", torch.sin(ang))

    def forward(self, wav):
        frames = wav.unfold(-1, self.frame, self.hop) * self.window.to(wav.dtype)
        re = frames @ self.dft_cos.to(wav.dtype)
        im = frames @ self.dft_sin.to(wav.dtype)
        return torch.log(re.pow(2) + im.pow(2) + 1e-4)


class KWSNet(nn.Module):
    def __init__(self, n_bins=64, n_classes=len(KEYWORDS)):
        super().__init__()
        self.frontend = LogSpectrogram(n_bins=n_bins)
        self.norm = nn.LayerNorm(n_bins)
        self.conv = nn.Sequential(nn.Conv1d(n_bins, 48, 5, padding=2), nn.ReLU(),
                                  nn.Conv1d(48, 48, 5, padding=2), nn.ReLU())
        self.out = nn.Linear(48, n_classes)

    def forward(self, wav):
        feats = self.norm(self.frontend(wav).float())
        h = self.conv(feats.transpose(1, 2))
        return self.out(h.amax(-1))


train_dl = DataLoader(KeywordClips(600), batch_size=32, shuffle=True, collate_fn=collate)
val_dl = DataLoader(KeywordClips(120), batch_size=120, collate_fn=collate)
model = KWSNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(3):
    model.train()
    losses = []
    for wav, y in train_dl:
        loss = F.cross_entropy(model(wav), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        wav, y = next(iter(val_dl))
        acc = (model(wav).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch} train_loss {np.mean(losses):.4f} val_acc {acc:.3f}")
