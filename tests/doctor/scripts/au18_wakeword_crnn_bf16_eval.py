import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS, EPS = 8000, 256, 80, 32, 1e-7


class LogMel(nn.Module):
    def __init__(self):
        super().__init__()
        m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
        hz = 700 * (10 ** (m / 2595) - 1)
        f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
        fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                           (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
        self.register_buffer("fb", fb)
        self.register_buffer("window", torch.hann_window(N_FFT))

    def forward(self, wav):
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True).abs().pow(2)
        return torch.log(self.fb @ spec + 1e-6)


class WakeWordCRNN(nn.Module):
    def __init__(self, ch=48, hidden=64):
        super().__init__()
        self.frontend = LogMel()
        self.conv = nn.Sequential(nn.Conv1d(N_MELS, ch, 5, padding=2), nn.BatchNorm1d(ch), nn.ReLU(),
                                  nn.Conv1d(ch, ch, 5, padding=2), nn.BatchNorm1d(ch), nn.ReLU())
        self.gru = nn.GRU(ch, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, wav):
        x = self.conv(self.frontend(wav)).transpose(1, 2)
        return self.out(self.gru(x)[0]).squeeze(-1)


def make_streams(n, gen, seconds=2):
    n_samp = SR * seconds
    t = torch.arange(n_samp) / SR
    wavs = 0.02 * torch.randn(n, n_samp, generator=gen)
    labels = torch.rand(n, generator=gen) < 0.5
    frame_labels = torch.zeros(n, n_samp // HOP + 1)
    for i in range(n):
        start = torch.rand(1, generator=gen).item() * (seconds - 0.6)
        env = ((t > start) & (t < start + 0.5)).float()
        if labels[i]:
            wavs[i] += 0.3 * env * torch.sin(2 * math.pi * (400 * t + 800 * (t - start).clamp(min=0) ** 2))
            frame_labels[i, int((start + 0.3) * SR / HOP):int((start + 0.55) * SR / HOP)] = 1.0
        else:
            wavs[i] += 0.3 * env * torch.sin(2 * math.pi * (300 + 500 * torch.rand(1, generator=gen)) * t)
    return wavs, labels.float(), frame_labels


def clip_scores(frame_logits, smooth=3):
    post = torch.sigmoid(frame_logits).unsqueeze(1)
    post = F.avg_pool1d(post, smooth, 1, padding=smooth // 2, count_include_pad=False).squeeze(1)
    return 1 - torch.exp(torch.log1p(-post).sum(-1))


def detection_metrics(p, labels):
    p = p.clamp(EPS, 1 - EPS)
    nll = -(labels * torch.log(p) + (1 - labels) * torch.log(1 - p)).float().mean()
    fa = ((p > 0.5) & (labels == 0)).sum().item() / max((labels == 0).sum().item(), 1)
    miss = ((p <= 0.5) & (labels == 1)).sum().item() / max((labels == 1).sum().item(), 1)
    return nll.item(), fa, miss


def main():
    gen = torch.Generator().manual_seed(0)
    train_x, _, train_frames = make_streams(160, gen)
    test_x, test_y, _ = make_streams(48, gen)
    model = WakeWordCRNN()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for epoch in range(4):
        model.train()
        for i in range(0, len(train_x), 16):
            logits = model(train_x[i:i + 16])
            loss = F.binary_cross_entropy_with_logits(logits, train_frames[i:i + 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            nll, fa, miss = detection_metrics(clip_scores(model(test_x)), test_y)
        print(f"epoch {epoch} frame bce {loss.item():.4f} | clip nll {nll:.4f} false-alarm {fa:.3f} miss {miss:.3f}")


if __name__ == "__main__":
    main()
