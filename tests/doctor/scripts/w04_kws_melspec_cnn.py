import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SR = 8000


def mel_filterbank(n_fft, n_mels, sr, fmin=20.0, fmax=None):
    fmax = fmax or sr / 2
    hz_to_mel = lambda f: 2595.0 * math.log10(1.0 + f / 700.0)
    mels = torch.linspace(hz_to_mel(fmin), hz_to_mel(fmax), n_mels + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    bins = torch.floor((n_fft + 1) * hz / sr).long()
    fb = torch.zeros(n_mels, n_fft // 2 + 1)
    for m in range(1, n_mels + 1):
        lo, c, hi = bins[m - 1].item(), bins[m].item(), bins[m + 1].item()
        for k in range(lo, c):
            fb[m - 1, k] = (k - lo) / max(c - lo, 1)
        for k in range(c, hi):
            fb[m - 1, k] = (hi - k) / max(hi - c, 1)
    return fb


class MelFrontend(nn.Module):
    def __init__(self, n_fft=256, hop=80, n_mels=40):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("fb", mel_filterbank(n_fft, n_mels, SR))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True)
        power = spec.abs() ** 2
        mel = torch.matmul(self.fb, power)
        return torch.log(mel + 1e-6)


class KWSNet(nn.Module):
    def __init__(self, n_classes=4, n_mels=40):
        super().__init__()
        self.frontend = MelFrontend(n_mels=n_mels)
        self.norm = nn.BatchNorm1d(n_mels)
        self.convs = nn.Sequential(
            nn.Conv1d(n_mels, 64, 5, padding=2), nn.ReLU(),
            nn.Conv1d(64, 64, 5, padding=2, dilation=1), nn.ReLU(),
            nn.Conv1d(64, 64, 3, padding=2, dilation=2), nn.ReLU(),
        )
        self.classifier = nn.Linear(64, n_classes)

    def forward(self, wav):
        feats = self.norm(self.frontend(wav))
        h = self.convs(feats)
        return self.classifier(h.mean(dim=-1))


def synth_keyword(label, n=SR):
    t = torch.arange(n) / SR
    f0 = [300.0, 550.0, 900.0, 1400.0][label]
    sweep = f0 * (1 + 0.3 * t)
    wav = torch.sin(2 * math.pi * sweep * t) * torch.exp(-((t - 0.5) ** 2) / 0.05)
    return wav + 0.05 * torch.randn(n)


def make_dataset(n):
    labels = torch.randint(0, 4, (n,))
    wavs = torch.stack([synth_keyword(int(l)) for l in labels])
    return wavs, labels


def main():
    dtype = torch.bfloat16
    wavs, labels = make_dataset(256)
    model = KWSNet().to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(3):
        perm = torch.randperm(wavs.shape[0])
        correct = 0
        for i in range(0, wavs.shape[0], 32):
            idx = perm[i:i + 32]
            logits = model(wavs[idx].to(dtype))
            loss = F.cross_entropy(logits.float(), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (logits.argmax(-1) == labels[idx]).sum().item()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {correct / wavs.shape[0]:.3f}")


if __name__ == "__main__":
    main()
