import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS, N_SPK = 8000, 200, 80, 30, 10


def fbank(wav):
    spec = torch.stft(wav, N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True).abs().pow(2)
    m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                       (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
    feats = torch.log(fb @ spec + 1e-6)
    return (feats - feats.mean((0, 2), keepdim=True)) / feats.std((0, 2), keepdim=True)


class StatsPool(nn.Module):
    def forward(self, x):
        mean = x.mean(-1)
        std = (x - mean.unsqueeze(-1)).pow(2).mean(-1).clamp(min=1e-4).sqrt()
        return torch.cat([mean, std], -1)


class XVector(nn.Module):
    def __init__(self, ch=128, emb=64, n_spk=N_SPK):
        super().__init__()
        layers, in_ch = [], N_MELS
        for k, d in [(5, 1), (3, 2), (3, 3), (1, 1)]:
            layers += [nn.Conv1d(in_ch, ch, k, dilation=d), nn.ReLU(), nn.BatchNorm1d(ch)]
            in_ch = ch
        self.frame = nn.Sequential(*layers)
        self.pool = StatsPool()
        self.segment = nn.Sequential(nn.Linear(2 * ch, emb), nn.ReLU(), nn.BatchNorm1d(emb))
        self.classifier = nn.Linear(emb, n_spk)

    def forward(self, feats):
        emb = self.segment(self.pool(self.frame(feats)))
        return emb, self.classifier(emb)


def make_speakers(n_utts, gen):
    t = torch.arange(SR) / SR
    f0s = 90 + 20 * torch.arange(N_SPK)
    tilts = torch.linspace(0.3, 1.5, N_SPK)
    wavs, spk = [], []
    for s in range(N_SPK):
        for _ in range(n_utts):
            f0 = f0s[s] * (1 + 0.02 * torch.randn(1, generator=gen))
            wav = sum(torch.sin(2 * math.pi * h * f0 * t) / h ** tilts[s] for h in range(1, 9))
            wavs.append(0.1 * wav + 0.005 * torch.randn(SR, generator=gen))
            spk.append(s)
    return fbank(torch.stack(wavs)), torch.tensor(spk)


def equal_error_rate(scores, same):
    best = 1.0
    for th in torch.linspace(-1, 1, 201):
        far = ((scores >= th) & ~same).sum() / (~same).sum()
        frr = ((scores < th) & same).sum() / same.sum()
        best = min(best, max(far.item(), frr.item()))
    return best


def main():
    gen = torch.Generator().manual_seed(0)
    train_x, train_y = make_speakers(12, gen)
    test_x, test_y = make_speakers(4, gen)
    model = XVector().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)
    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(train_x), generator=gen)
        for i in range(0, len(perm), 32):
            idx = perm[i:i + 32]
            _, logits = model(train_x[idx].half())
            loss = F.cross_entropy(logits.float(), train_y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            emb, _ = model(test_x.half())
        emb = F.normalize(emb.float(), dim=-1)
        scores, same = emb @ emb.t(), test_y[:, None] == test_y[None]
        mask = ~torch.eye(len(emb), dtype=torch.bool)
        print(f"epoch {epoch} loss {loss.item():.4f} EER {equal_error_rate(scores[mask], same[mask]):.3f}")


if __name__ == "__main__":
    main()
