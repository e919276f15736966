import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)

SR, N_FFT, HOP, N_MELS = 8000, 256, 80, 40
ALPHABET = "_abcdefghij"
TONES = {c: 300.0 + 180.0 * i for i, c in enumerate(ALPHABET[1:])}


def mel_filterbank(sr, n_fft, n_mels, fmin=0.0, fmax=None):
    fmax = fmax or sr / 2
    mels = np.linspace(2595.0 * np.log10(1.0 + fmin / 700.0), 2595.0 * np.log10(1.0 + fmax / 700.0), n_mels + 2)
    hz = 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    bins = np.fft.rfftfreq(n_fft, 1.0 / sr)
    fb = np.zeros((n_mels, len(bins)))
    for i in range(n_mels):
        lo, c, hi = hz[i], hz[i + 1], hz[i + 2]
        fb[i] = np.maximum(0.0, np.minimum((bins - lo) / (c - lo), (hi - bins) / (hi - c)))
    return fb


class LogMel(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.register_buffer("mel_fb", torch.from_numpy(mel_filterbank(SR, N_FFT, N_MELS)))

    def forward(self, wav):
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True).abs().pow(2)
        return torch.log(self.mel_fb @ spec + 1e-6).transpose(1, 2)


def spec_augment(x, f_width=6, t_width=8):
    x = x.clone()
    for b in range(x.size(0)):
        f0, t0 = np.random.randint(0, N_MELS - f_width), np.random.randint(0, x.size(1) - t_width)
        x[b, :, f0:f0 + f_width] = 0.0
        x[b, t0:t0 + t_width, :] = 0.0
    return x


class CTCEncoder(nn.Module):
    def __init__(self, d=96, vocab=len(ALPHABET)):
        super().__init__()
        self.frontend = LogMel()
        self.subsample = nn.Sequential(nn.Conv2d(1, 16, 3, 2, 1), nn.GELU(), nn.Conv2d(16, 16, 3, 2, 1), nn.GELU())
        self.proj = nn.Linear(16 * (N_MELS // 4), d)
        layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.1, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)

    def forward(self, wav, augment=False):
        feats = self.frontend(wav)
        feats = (feats - feats.mean(1, keepdim=True)) / (feats.std(1, keepdim=True) + 1e-5)
        if augment:
            feats = spec_augment(feats)
        x = self.subsample(feats.unsqueeze(1))
        x = self.proj(x.permute(0, 2, 1, 3).flatten(2))
        return self.head(self.encoder(x)).log_softmax(-1)


def synth(n, rng):
    wavs, texts = [], []
    for _ in range(n):
        text = "".join(rng.choice(list(ALPHABET[1:]), size=rng.integers(2, 5)))
        t = np.arange(int(0.12 * SR)) / SR
        chunks = [0.5 * np.sin(2 * math.pi * TONES[c] * t) * np.hanning(len(t)) for c in text]
        wav = np.concatenate([np.concatenate([c, np.zeros(200)]) for c in chunks])
        wavs.append((np.pad(wav, (0, SR - len(wav))) + 0.01 * rng.standard_normal(SR)).astype(np.float32))
        texts.append(text)
    return torch.from_numpy(np.stack(wavs)), texts


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, cb in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (ca != cb))
    return d[-1]


def greedy_decode(log_probs):
    seqs = log_probs.argmax(-1).tolist()
    return ["".join(ALPHABET[k] for i, k in enumerate(s) if k != 0 and (i == 0 or k != s[i - 1])) for s in seqs]


def main():
    rng = np.random.default_rng(0)
    train_x, train_y = synth(96, rng)
    test_x, test_y = synth(32, rng)
    model = CTCEncoder()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for epoch in range(4):
        model.train()
        for i in range(0, len(train_x), 16):
            wav, texts = train_x[i:i + 16], train_y[i:i + 16]
            targets = torch.tensor([ALPHABET.index(c) for t in texts for c in t])
            tgt_lens = torch.tensor([len(t) for t in texts])
            log_probs = model(wav, augment=True)
            in_lens = torch.full((wav.size(0),), log_probs.size(1), dtype=torch.long)
            loss = F.ctc_loss(log_probs.transpose(0, 1), targets, in_lens, tgt_lens, zero_infinity=True)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            hyps = greedy_decode(model(test_x))
        wer = sum(edit_distance(h, r) for h, r in zip(hyps, test_y)) / sum(len(r) for r in test_y)
        print(f"epoch {epoch} ctc loss {loss.item():.3f} CER {wer:.3f}")


if __name__ == "__main__":
    main()
