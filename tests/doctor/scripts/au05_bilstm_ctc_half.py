import math
from collections import defaultdict

import torch
import torch.nn as nn

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS = 8000, 200, 80, 32
VOCAB = ["<blank>", "a", "e", "i", "o", "u", "m", "s"]
PITCH = {k: 250.0 + 150.0 * k for k in range(1, len(VOCAB))}


def fbank_features(wavs):
    window = torch.hann_window(N_FFT)
    spec = torch.stft(wavs, N_FFT, HOP, window=window, return_complex=True).abs() ** 2
    m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                       (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
    feats = torch.log(fb @ spec + 1e-6).transpose(1, 2)
    return (feats - feats.mean((0, 1))) / feats.std((0, 1))


class BiLSTMCTC(nn.Module):
    def __init__(self, hidden=128, vocab=len(VOCAB)):
        super().__init__()
        self.subsample = nn.Sequential(nn.Conv1d(N_MELS, hidden, 3, stride=2, padding=1), nn.ReLU())
        self.lstm = nn.LSTM(hidden, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.out = nn.Linear(2 * hidden, vocab)

    def forward(self, feats):
        x = self.subsample(feats.transpose(1, 2)).transpose(1, 2)
        return self.out(self.lstm(x)[0]).log_softmax(-1)


def make_corpus(n, gen):
    seg = int(0.1 * SR)
    t = torch.arange(seg) / SR
    wavs, labels = [], []
    for _ in range(n):
        tokens = torch.randint(1, len(VOCAB), (int(torch.randint(2, 6, (1,), generator=gen)),), generator=gen).tolist()
        pieces = [0.4 * torch.sin(2 * math.pi * PITCH[k] * t) * torch.hann_window(seg) for k in tokens]
        wav = torch.cat([torch.cat([p, torch.zeros(160)]) for p in pieces])
        wavs.append(nn.functional.pad(wav, (0, SR - wav.numel())) + 0.005 * torch.randn(SR, generator=gen))
        labels.append(tokens)
    return fbank_features(torch.stack(wavs)), labels


def lse(a, b):
    if a == -math.inf or b == -math.inf:
        return max(a, b)
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


def ctc_beam_search(log_probs, beam=4):
    beams = {(): (0.0, -math.inf)}
    for lp in log_probs.float().tolist():
        nxt = defaultdict(lambda: (-math.inf, -math.inf))
        for prefix, (pb, pnb) in beams.items():
            total = lse(pb, pnb)
            b, nb = nxt[prefix]
            nxt[prefix] = (lse(b, total + lp[0]), nb)
            for k in range(1, len(lp)):
                ext = prefix + (k,)
                b, nb = nxt[ext]
                add = pb + lp[k] if prefix and prefix[-1] == k else total + lp[k]
                nxt[ext] = (b, lse(nb, add))
        beams = dict(sorted(nxt.items(), key=lambda kv: -max(kv[1]))[:beam])
    return list(max(beams.items(), key=lambda kv: max(kv[1]))[0])


def main():
    gen = torch.Generator().manual_seed(0)
    train_x, train_y = make_corpus(128, gen)
    test_x, test_y = make_corpus(8, gen)
    model = BiLSTMCTC().half()
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)
    for epoch in range(3):
        for i in range(0, len(train_x), 16):
            feats, labels = train_x[i:i + 16].half(), train_y[i:i + 16]
            log_probs = model(feats)
            targets = torch.tensor([k for seq in labels for k in seq])
            in_lens = torch.full((feats.size(0),), log_probs.size(1), dtype=torch.long)
            tgt_lens = torch.tensor([len(seq) for seq in labels])
            loss = ctc(log_probs.transpose(0, 1), targets, in_lens, tgt_lens)
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            lp = model(test_x.half())
        hyps = [ctc_beam_search(lp[b]) for b in range(lp.size(0))]
        acc = sum(h == r for h, r in zip(hyps, test_y)) / len(test_y)
        print(f"epoch {epoch} ctc loss {loss.item():.3f} sentence acc {acc:.2f}")


if __name__ == "__main__":
    main()
