import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SR = 16000
N_FFT = 512
HOP = 160
N_MELS = 64
N_CLASSES = 6


def hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def make_filterbank():
    freqs = np.linspace(0, SR / 2, N_FFT // 2 + 1)
    pts = mel_to_hz(np.linspace(hz_to_mel(0), hz_to_mel(SR / 2), N_MELS + 2))
    fb = np.zeros((N_MELS, len(freqs)), dtype=np.float32)
    for i in range(N_MELS):
        lo, c, hi = pts[i], pts[i + 1], pts[i + 2]
        up = (freqs - lo) / (c - lo)
        down = (hi - freqs) / (hi - c)
        fb[i] = np.maximum(0, np.minimum(up, down))
    return torch.from_numpy(fb)


class KeywordPCM(Dataset):
    """Keyword clips stored as 16-bit PCM, as they come out of the recorder."""

    def __init__(self, n=48, seconds=0.5):
        rng = np.random.default_rng(1)
        t = np.arange(int(SR * seconds)) / SR
        self.clips, self.labels = [], []
        for i in range(n):
            label = i % N_CLASSES
            f0 = 200 + 150 * label
            sig = 250 * np.sin(2 * np.pi * f0 * t) + 60 * rng.standard_normal(t.shape)
            self.clips.append(np.clip(sig, -32768, 32767).astype(np.int16))
            self.labels.append(label)

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        wav = torch.from_numpy(self.clips[i].astype(np.float32))
        return wav, self.labels[i]


class LogMelFrontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.register_buffer("fb", make_filterbank())

    def forward(self, wav):
        spec = torch.stft(wav.float(), N_FFT, HOP, window=self.window.float(), return_complex=True)
        mag = spec.abs().to(self.fb.dtype)
        power = mag.pow(2)
        mel = torch.matmul(self.fb, power)
        logmel = torch.log(mel + 1e-3)
        mean = logmel.mean(dim=-1, keepdim=True)
        std = logmel.std(dim=-1, keepdim=True)
        return (logmel - mean) / (std + 1e-3)


class KWSNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.frontend = LogMelFrontend()
        self.conv = nn.Sequential(
            nn.Conv1d(N_MELS, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
        )
        self.classifier = nn.Linear(64, N_CLASSES)

    def forward(self, wav):
        x = self.conv(self.frontend(wav))
        return self.classifier(x.mean(dim=-1))


def main():
    torch.manual_seed(0)
    loader = DataLoader(KeywordPCM(), batch_size=12, shuffle=True)
    model = KWSNet().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(3):
        total = 0.0
        for wav, label in loader:
            logits = model(wav.half())
            loss = F.cross_entropy(logits.float(), label)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} mean loss {total / len(loader):.4f}")
    model.eval()
    with torch.no_grad():
        wav, label = next(iter(loader))
        acc = (model(wav.half()).argmax(-1) == label).float().mean().item()
    print(f"train-batch accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
