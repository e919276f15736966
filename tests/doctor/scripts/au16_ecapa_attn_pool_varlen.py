import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS, N_SPK = 8000, 200, 80, 32, 6


def fbank(wav):
    spec = torch.stft(wav, N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True).abs().pow(2)
    m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                       (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
    return torch.log(fb @ spec + 1e-6)


class AttentiveStatsPool(nn.Module):
    def __init__(self, ch, bottleneck=64):
        super().__init__()
        self.attn = nn.Sequential(nn.Conv1d(ch, bottleneck, 1), nn.Tanh(), nn.Conv1d(bottleneck, ch, 1))

    def forward(self, x, mask):
        scores = self.attn(x).masked_fill(~mask.unsqueeze(1), -1e9)
        w = torch.softmax(scores, dim=-1)
        mu = (w * x).sum(-1)
        sigma = ((w * x * x).sum(-1) - mu * mu).clamp(min=1e-4).sqrt()
        return torch.cat([mu, sigma], -1)


class SpeakerNet(nn.Module):
    def __init__(self, ch=96, emb=48):
        super().__init__()
        self.tdnn = nn.Sequential(
            nn.Conv1d(N_MELS, ch, 5, padding=2), nn.ReLU(), nn.BatchNorm1d(ch),
            nn.Conv1d(ch, ch, 3, padding=2, dilation=2), nn.ReLU(), nn.BatchNorm1d(ch),
            nn.Conv1d(ch, ch, 3, padding=3, dilation=3), nn.ReLU(), nn.BatchNorm1d(ch),
        )
        self.pool = AttentiveStatsPool(ch)
        self.embed = nn.Sequential(nn.Linear(2 * ch, emb), nn.BatchNorm1d(emb))

    def forward(self, feats, mask):
        return self.embed(self.pool(self.tdnn(feats), mask))


class AMSoftmax(nn.Module):
    def __init__(self, emb, n_cls, margin=0.25, scale=20.0):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n_cls, emb) * 0.05)
        self.m, self.s = margin, scale

    def forward(self, emb, y):
        cos = F.normalize(emb.float()) @ F.normalize(self.w).t()
        return F.cross_entropy(self.s * (cos - self.m * F.one_hot(y, cos.size(1))), y)


def make_batch(spk_ids, gen):
    wavs, lengths = [], []
    for s in spk_ids:
        n = int(SR * (0.6 + 0.8 * torch.rand(1, generator=gen)))
        t = torch.arange(n) / SR
        f0 = (100 + 30 * s) * (1 + 0.03 * torch.randn(1, generator=gen))
        wav = sum(torch.sin(2 * math.pi * h * f0 * t + h) * (0.6 ** abs(h - 1 - s % 3)) for h in range(1, 7))
        wavs.append(0.15 * wav + 0.01 * torch.randn(n, generator=gen))
        lengths.append(n // HOP + 1)
    feats = fbank(nn.utils.rnn.pad_sequence(wavs, batch_first=True))
    mask = torch.arange(feats.size(-1))[None] < torch.tensor(lengths)[:, None]
    return feats, mask


def main():
    gen = torch.Generator().manual_seed(0)
    model, head = SpeakerNet(), AMSoftmax(48, N_SPK)
    params = list(model.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    enroll_ids = torch.arange(N_SPK).repeat(3)
    for step in range(30):
        y = torch.randint(0, N_SPK, (16,), generator=gen)
        feats, mask = make_batch(y.tolist(), gen)
        with torch.autocast("cpu", dtype=torch.float16):
            emb = model(feats, mask)
        loss = head(emb, y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if step % 10 == 9:
            model.eval()
            with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
                e = F.normalize(model(*make_batch(enroll_ids.tolist(), gen)).float())
            centroids = F.normalize(torch.stack([e[enroll_ids == s].mean(0) for s in range(N_SPK)]))
            acc = ((e @ centroids.t()).argmax(-1) == enroll_ids).float().mean()
            model.train()
            print(f"step {step + 1} am-softmax loss {loss.item():.3f} enrollment id acc {acc.item():.2f}")


if __name__ == "__main__":
    main()
