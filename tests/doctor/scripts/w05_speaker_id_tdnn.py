import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
SR = 8000
N_FFT, HOP, N_MELS = 256, 128, 32


def mel_fb(n_mels=N_MELS, n_fft=N_FFT, sr=SR):
    freqs = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    mel = 2595 * torch.log10(1 + freqs / 700)
    centers = torch.linspace(mel[1], mel[-1], n_mels + 2)
    lower, center, upper = centers[:-2, None], centers[1:-1, None], centers[2:, None]
    up = (mel[None] - lower) / (center - lower)
    down = (upper - mel[None]) / (upper - center)
    return torch.clamp(torch.minimum(up, down), min=0)


class Utterances(Dataset):
    def __init__(self, n, n_speakers=6):
        self.items = []
        fb = mel_fb()
        window = torch.hann_window(N_FFT)
        for i in range(n):
            spk = i % n_speakers
            dur = int(SR * (0.4 + 0.6 * torch.rand(1).item()))
            t = torch.arange(dur) / SR
            f0 = 110 + 35 * spk
            wav = sum(torch.sin(2 * math.pi * f0 * k * t) / k for k in range(1, 6))
            wav = wav * (0.5 + 0.5 * torch.sin(2 * math.pi * 3 * t)) + 0.01 * torch.randn(dur)
            spec = torch.stft(wav, N_FFT, HOP, window=window, return_complex=True).abs() ** 2
            self.items.append((fb @ spec, spk))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def pad_collate(batch):
    feats, labels = zip(*batch)
    lengths = torch.tensor([f.shape[-1] for f in feats])
    out = torch.zeros(len(feats), N_MELS, int(lengths.max()))
    for i, f in enumerate(feats):
        out[i, :, : f.shape[-1]] = f
    return out, lengths, torch.tensor(labels)


class LogCompress(nn.Module):
    def __init__(self, eps=1e-10):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return torch.log(x + self.eps)


class SpeakerNet(nn.Module):
    def __init__(self, n_speakers=6):
        super().__init__()
        self.log = LogCompress()
        self.tdnn = nn.Sequential(
            nn.Conv1d(N_MELS, 64, 5, padding=2), nn.ReLU(),
            nn.Conv1d(64, 64, 3, padding=2, dilation=2), nn.ReLU(),
            nn.Conv1d(64, 96, 1), nn.ReLU(),
        )
        self.classifier = nn.Linear(96, n_speakers)

    def forward(self, x, lengths):
        h = self.tdnn(self.log(x) / 10.0)
        mask = (torch.arange(h.shape[-1])[None] < lengths[:, None]).to(h.dtype)
        pooled = (h * mask[:, None]).sum(-1) / lengths[:, None].to(h.dtype)
        return self.classifier(pooled)


def main():
    dtype = torch.float16
    loader = DataLoader(Utterances(192), batch_size=16, shuffle=True, collate_fn=pad_collate)
    model = SpeakerNet().to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    for epoch in range(3):
        total, n = 0.0, 0
        for feats, lengths, labels in loader:
            logits = model(feats.to(dtype), lengths)
            loss = F.cross_entropy(logits.float(), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            n += 1
        print(f"epoch {epoch} mean loss {total / n:.4f}")


if __name__ == "__main__":
    main()
