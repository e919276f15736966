"""BiLSTM + CTC digit recogniser on MFCC features computed with NumPy.  The whole model
is cast to bfloat16 ("same exponent range as fp32, so no loss scaling needed") and
trained with Accelerate."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(1)

SR, N_FFT, HOP, N_MELS, N_MFCC = 8000, 256, 80, 26, 13
BLANK, N_DIGITS = 0, 10


def mel_fb():
    hz2mel = lambda f: 2595 * np.log10(1 + f / 700)
    mel2hz = lambda m: 700 * (10 ** (m / 2595) - 1)
    pts = mel2hz(np.linspace(hz2mel(0), hz2mel(SR / 2), N_MELS + 2))
    bins = np.floor((N_FFT + 1) * pts / SR).astype(int)
    fb = np.zeros((N_MELS, N_FFT // 2 + 1))
    for m in range(1, N_MELS + 1):
        l, c, r = bins[m - 1], bins[m], bins[m + 1]
        fb[m - 1, l:c] = (np.arange(l, c) - l) / max(1, c - l)
        fb[m - 1, c:r] = (r - np.arange(c, r)) / max(1, r - c)
    return fb


def dct_matrix(n_out, n_in):
    n = np.arange(n_in)
    k = np.arange(n_out)[:, None]
    d = np.cos(np.pi / n_in * (n + 0.5) * k) * np.sqrt(2.0 / n_in)
    d[0] /= np.sqrt(2)
    return d


FB, DCT = mel_fb(), dct_matrix(N_MFCC, N_MELS)


def mfcc(wave):
    wave = np.append(wave[0], wave[1:] - 0.97 * wave[:-1])  # pre-emphasis
    n_frames = 1 + (len(wave) - N_FFT) // HOP
    idx = np.arange(N_FFT)[None] + HOP * np.arange(n_frames)[:, None]
    frames = wave[idx] * np.hamming(N_FFT)
    pspec = np.abs(np.fft.rfft(frames, N_FFT)) ** 2 / N_FFT
    logmel = np.log(pspec @ FB.T + 1e-8)
    c = logmel @ DCT.T
    c -= c.mean(0)
    return c.astype(np.float32)


def digit_wave(d, dur=0.18):
    t = np.arange(int(SR * dur)) / SR
    f1, f2 = 300 + 70 * d, 900 + 130 * d  # crude two-formant "vowel" per digit
    env = np.hanning(len(t))
    return env * (0.5 * np.sin(2 * np.pi * f1 * t) + 0.3 * np.sin(2 * np.pi * f2 * t))


class DigitStrings(Dataset):
    def __init__(self, n):
        self.data = []
        for _ in range(n):
            digits = rng.integers(0, N_DIGITS, size=rng.integers(2, 5))
            gap = np.zeros(int(0.04 * SR))
            wave = np.concatenate([np.concatenate([digit_wave(d), gap]) for d in digits])
            wave = wave + 0.01 * rng.standard_normal(len(wave))
            self.data.append((mfcc(wave), digits + 1))  # labels 1..10, 0 = blank

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i]


def collate(items):
    feats = [torch.from_numpy(f) for f, _ in items]
    flens = torch.tensor([f.shape[0] for f in feats])
    labels = torch.from_numpy(np.concatenate([l for _, l in items])).long()
    llens = torch.tensor([len(l) for _, l in items])
    return nn.utils.rnn.pad_sequence(feats, batch_first=True), flens, labels, llens


class BiLSTMCTC(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.lstm = nn.LSTM(N_MFCC, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.classifier = nn.Linear(2 * hidden, N_DIGITS + 1)

    def forward(self, x, lens):
        packed = nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        return self.classifier(out)


accelerator = Accelerator(cpu=True)
model = BiLSTMCTC().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
loader = DataLoader(DigitStrings(48), batch_size=8, shuffle=True, collate_fn=collate)
model, opt, loader = accelerator.prepare(model, opt, loader)

for epoch in range(3):
    for x, flens, labels, llens in loader:
        logits = model(x.to(torch.bfloat16), flens)
        log_probs = F.log_softmax(logits, dim=-1).transpose(0, 1)
        loss = F.ctc_loss(log_probs, labels, flens, llens, blank=BLANK, zero_infinity=True)
        opt.zero_grad()
        accelerator.backward(loss)
        opt.step()
    accelerator.print(f"epoch {epoch} ctc {loss.item():.3f}")
