import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SAMPLE_RATE = 16000
HOP = 160
N_FFT = 400
N_MELS = 40
VOCAB = ["<blank>"] + list("abcdefghij ")


def mel_filterbank(n_fft, n_mels, sr):
    n_freqs = n_fft // 2 + 1
    mel_max = 2595.0 * math.log10(1.0 + (sr / 2) / 700.0)
    mels = torch.linspace(0.0, mel_max, n_mels + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    bins = torch.floor((n_fft + 1) * hz / sr).long()
    fb = torch.zeros(n_mels, n_freqs)
    for m in range(1, n_mels + 1):
        lo, c, hi = bins[m - 1].item(), bins[m].item(), bins[m + 1].item()
        for k in range(lo, c):
            fb[m - 1, k] = (k - lo) / max(c - lo, 1)
        for k in range(c, hi):
            fb[m - 1, k] = (hi - k) / max(hi - c, 1)
    return fb


class SyntheticSpeech(Dataset):
    def __init__(self, n=32):
        g = torch.Generator().manual_seed(0)
        self.items = []
        for _ in range(n):
            n_samples = random.randint(6000, 12000)
            wav = 0.1 * torch.randn(n_samples, generator=g)
            text = torch.randint(1, len(VOCAB), (random.randint(3, 8),), generator=g)
            self.items.append((wav, text))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    wavs, texts = zip(*batch)
    wav_lens = torch.tensor([w.numel() for w in wavs])
    wav = nn.utils.rnn.pad_sequence(wavs, batch_first=True)
    targets = torch.cat(texts)
    target_lens = torch.tensor([t.numel() for t in texts])
    feat_lens = wav_lens / HOP + 1
    return wav, feat_lens, targets, target_lens


class LogMel(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.register_buffer("fb", mel_filterbank(N_FFT, N_MELS, SAMPLE_RATE))

    def forward(self, wav):
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True)
        power = spec.abs().pow(2)
        mel = torch.matmul(self.fb, power)
        return torch.log(mel.clamp_min(1e-10)).transpose(1, 2)


class ConvBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.dw = nn.Conv1d(d, d, 15, padding=7, groups=d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))

    def forward(self, x):
        y = self.norm(x).transpose(1, 2)
        x = x + self.dw(y).transpose(1, 2)
        return x + 0.5 * self.ff(self.norm(x))


class CTCModel(nn.Module):
    def __init__(self, d=96):
        super().__init__()
        self.frontend = LogMel()
        self.proj = nn.Linear(N_MELS, d)
        self.blocks = nn.ModuleList([ConvBlock(d) for _ in range(2)])
        self.head = nn.Linear(d, len(VOCAB))

    def forward(self, wav):
        x = self.proj(self.frontend(wav))
        for blk in self.blocks:
            x = blk(x)
        return self.head(x).log_softmax(-1)


def main():
    random.seed(0)
    torch.manual_seed(0)
    loader = DataLoader(SyntheticSpeech(), batch_size=8, shuffle=True, collate_fn=collate)
    model = CTCModel()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for step, (wav, feat_lens, targets, target_lens) in enumerate(loader):
            log_probs = model(wav)
            loss = F.ctc_loss(
                log_probs.transpose(0, 1), targets, feat_lens, target_lens,
                blank=0, zero_infinity=True,
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(f"epoch {epoch} step {step} ctc loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
