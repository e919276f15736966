import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS = 16000, 1024, 256, 40
KEYWORDS = ["yes", "no", "up", "down", "left", "right"]


def mel_fbank(n_mels, n_fft, sr):
    mel = lambda f: 2595 * torch.log10(1 + f / 700)
    hz = lambda m: 700 * (10 ** (m / 2595) - 1)
    edges = hz(torch.linspace(mel(torch.tensor(20.0)), mel(torch.tensor(sr / 2)), n_mels + 2))
    freqs = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    up = (freqs[None] - edges[:-2, None]) / (edges[1:-1] - edges[:-2])[:, None]
    down = (edges[2:, None] - freqs[None]) / (edges[2:] - edges[1:-1])[:, None]
    return torch.clamp(torch.minimum(up, down), min=0)


class LogMelFrontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.register_buffer("mel_fb", mel_fbank(N_MELS, N_FFT, SR))

    def forward(self, wav):
        spec = torch.stft(wav.float(), N_FFT, HOP, window=self.window.float(), return_complex=True)
        power = spec.abs().to(self.mel_fb.dtype).pow(2)
        logmel = torch.log(self.mel_fb @ power + 1e-3)
        return (logmel - logmel.mean(-1, keepdim=True)) / (logmel.std(-1, keepdim=True) + 1e-3)


class KWSNet(nn.Module):
    def __init__(self, n_classes=len(KEYWORDS)):
        super().__init__()
        self.frontend = LogMelFrontend()
        self.body = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(64, n_classes)

    def forward(self, wav):
        x = self.frontend(wav).unsqueeze(1)
        return self.fc(self.body(x).flatten(1))


def make_keyword_set(n, gen):
    labels = torch.randint(0, len(KEYWORDS), (n,), generator=gen)
    t = torch.arange(SR) / SR
    wavs = []
    for y in labels.tolist():
        f0 = 200 + 90 * y
        gain = 0.6 + 0.4 * torch.rand(1, generator=gen).item()
        onset = torch.randint(0, SR // 4, (1,), generator=gen).item()
        env = ((t > onset / SR) & (t < onset / SR + 0.6)).float()
        sweep = torch.sin(2 * math.pi * (f0 * t + 0.5 * (40 * (y % 3) - 40) * t ** 2))
        wav = gain * env * sweep
        wavs.append(wav + 0.003 * torch.randn(SR, generator=gen))
    return torch.stack(wavs), labels


@torch.no_grad()
def evaluate(model, wavs, labels, bs=32):
    total, correct = 0.0, 0
    for i in range(0, len(wavs), bs):
        logits = model(wavs[i:i + bs].to(next(model.parameters()).dtype)).float()
        total += F.cross_entropy(logits, labels[i:i + bs], reduction="sum").item()
        correct += (logits.argmax(-1) == labels[i:i + bs]).sum().item()
    return total / len(wavs), correct / len(wavs)


def main():
    gen = torch.Generator().manual_seed(0)
    train_x, train_y = make_keyword_set(192, gen)
    val_x, val_y = make_keyword_set(64, gen)
    model = KWSNet()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(train_x))
        for i in range(0, len(perm), 32):
            idx = perm[i:i + 32]
            loss = F.cross_entropy(model(train_x[idx]), train_y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} train loss {loss.item():.4f}")

    model.eval().half()
    val_loss, val_acc = evaluate(model, val_x, val_y)
    print(f"fp16 deployment check: val loss {val_loss:.4f} acc {val_acc:.3f}")


if __name__ == "__main__":
    main()
