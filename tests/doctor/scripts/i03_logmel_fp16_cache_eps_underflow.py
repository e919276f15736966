"""Transformer-CTC keyword/phone recogniser.  Mel power spectrograms are precomputed once
and cached in float16 to halve the dataset's RAM; log compression + SpecAugment happen
on the fly in the collate function."""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

SR = 16000
N_FFT = 400
HOP = 160
N_MELS = 40
VOCAB = 10  # 0 = blank


def mel_fbank(n_mels=N_MELS, n_fft=N_FFT, sr=SR):
    hz2mel = lambda f: 2595.0 * math.log10(1.0 + f / 700.0)
    m = torch.linspace(hz2mel(0.0), hz2mel(sr / 2), n_mels + 2)
    hz = 700.0 * (10 ** (m / 2595.0) - 1.0)
    freqs = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    lo = (freqs[None] - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None])
    hi = (hz[2:, None] - freqs[None]) / (hz[2:, None] - hz[1:-1, None])
    return torch.clamp(torch.minimum(lo, hi), min=0)


FB = mel_fbank()
WIN = torch.hann_window(N_FFT)


class ToneSpeechDataset(Dataset):
    """Utterances of 2-4 'phones' (harmonic tones) with digital silence at both ends,
    as in many read-speech corpora after VAD trimming + zero padding."""

    def __init__(self, n_utts=64):
        self.items = []
        for _ in range(n_utts):
            n = int(torch.randint(2, 5, ()))
            labels = torch.randint(1, VOCAB, (n,))
            dur = int(SR * (0.25 * n + 0.3))
            wav = torch.zeros(dur)
            lead = int(0.15 * SR)
            seg = int(0.25 * SR)
            t = torch.arange(seg) / SR
            for k, lab in enumerate(labels.tolist()):
                f0 = 110.0 + 35.0 * lab
                tone = sum(torch.sin(2 * math.pi * h * f0 * t) / h for h in range(1, 4))
                wav[lead + k * seg: lead + (k + 1) * seg] = 0.2 * tone * torch.hann_window(seg)
            spec = torch.stft(wav, N_FFT, HOP, window=WIN, return_complex=True)
            mel = FB @ spec.abs().pow(2)  # (n_mels, frames), fp32
            self.items.append((mel.half(), labels))  # cache in fp16 to save memory

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def spec_augment(x, n_time_masks=2, max_t=8, n_freq_masks=2, max_f=6):
    x = x.clone()
    T, Fdim = x.shape
    for _ in range(n_time_masks):
        w = int(torch.randint(0, max_t + 1, ()))
        t0 = int(torch.randint(0, max(1, T - w), ()))
        x[t0:t0 + w, :] = 0.0
    for _ in range(n_freq_masks):
        w = int(torch.randint(0, max_f + 1, ()))
        f0 = int(torch.randint(0, max(1, Fdim - w), ()))
        x[:, f0:f0 + w] = 0.0
    return x


def collate(batch):
    feats, labels, flens, llens = [], [], [], []
    for mel, lab in batch:
        logmel = torch.log(mel + 1e-10).t()  # (frames, n_mels)
        logmel = (logmel - logmel.mean(0)) / (logmel.std(0) + 1e-5)  # per-utterance CMVN
        feats.append(spec_augment(logmel.float()))
        labels.append(lab)
        flens.append(logmel.shape[0])
        llens.append(len(lab))
    x = nn.utils.rnn.pad_sequence(feats, batch_first=True)
    return x, torch.cat(labels), torch.tensor(flens), torch.tensor(llens)


class TransformerCTC(nn.Module):
    def __init__(self, d=64, layers=2):
        super().__init__()
        self.inp = nn.Linear(N_MELS, d)
        self.pos = nn.Parameter(torch.randn(1, 512, d) * 0.02)
        enc_layer = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, layers)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, x, lens):
        pad_mask = torch.arange(x.shape[1])[None] >= lens[:, None]
        h = self.inp(x) + self.pos[:, : x.shape[1]]
        h = self.encoder(h, src_key_padding_mask=pad_mask)
        return self.out(h)


ds = ToneSpeechDataset()
loader = DataLoader(ds, batch_size=8, shuffle=True, collate_fn=collate)
model = TransformerCTC()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
ctc = nn.CTCLoss(blank=0)

for epoch in range(2):
    total = 0.0
    for x, y, flens, ylens in loader:
        logp = model(x, flens).log_softmax(-1).transpose(0, 1)
        loss = ctc(logp, y, flens, ylens)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}  mean ctc loss {total / len(loader):.4f}")
print("training finished")
