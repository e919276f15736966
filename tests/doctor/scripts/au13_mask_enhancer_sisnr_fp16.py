import math

import torch
import torch.nn as nn

torch.manual_seed(0)

SR, N_FFT, HOP, SEG = 8000, 256, 64, 6000


class MaskEnhancer(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        n_bins = N_FFT // 2 + 1
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.inp = nn.Linear(n_bins, hidden)
        self.rnn = nn.LSTM(hidden, hidden, batch_first=True, bidirectional=True)
        self.mask = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_bins), nn.Sigmoid())

    def forward(self, noisy):
        spec = torch.stft(noisy, N_FFT, HOP, window=self.window, return_complex=True)
        feats = torch.log1p(spec.abs()).transpose(1, 2)
        h, _ = self.rnn(torch.relu(self.inp(feats)))
        mask = self.mask(h).transpose(1, 2).float()
        return torch.istft(spec * mask, N_FFT, HOP, window=self.window, length=noisy.size(-1))


def si_snr(est, ref, eps=1e-8):
    est = est - est.mean(-1, keepdim=True)
    ref = ref - ref.mean(-1, keepdim=True)
    proj = (est * ref).sum(-1, keepdim=True) / (ref.pow(2).sum(-1, keepdim=True) + eps) * ref
    noise = est - proj
    return 10 * torch.log10(proj.pow(2).sum(-1) / (noise.pow(2).sum(-1) + eps) + eps)


def make_mixtures(n, gen):
    t = torch.arange(SEG) / SR
    f0 = 120 + 200 * torch.rand(n, 1, generator=gen)
    vib = 1 + 0.03 * torch.sin(2 * math.pi * 5 * t)
    clean = sum(torch.sin(2 * math.pi * k * f0 * vib * t) / k for k in range(1, 5))
    clean = clean * (0.5 + 0.5 * torch.sin(2 * math.pi * 1.5 * t + torch.rand(n, 1, generator=gen) * 6))
    clean = 0.3 * clean / clean.abs().amax(-1, keepdim=True)
    noise = torch.randn(n, SEG, generator=gen)
    noise = torch.cumsum(noise, -1) * 0.02 + noise
    noise = noise - noise.mean(-1, keepdim=True)
    snr_db = 5 * torch.rand(n, 1, generator=gen) - 2
    gain = clean.pow(2).mean(-1, keepdim=True).sqrt() / (noise.pow(2).mean(-1, keepdim=True).sqrt() * 10 ** (snr_db / 20))
    return clean + gain * noise, clean


def main():
    gen = torch.Generator().manual_seed(0)
    train_noisy, train_clean = make_mixtures(64, gen)
    test_noisy, test_clean = make_mixtures(24, gen)
    model = MaskEnhancer()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    for epoch in range(3):
        model.train()
        for i in range(0, len(train_noisy), 8):
            noisy, clean = train_noisy[i:i + 8], train_clean[i:i + 8]
            with torch.autocast("cpu", dtype=torch.float16):
                est = model(noisy)
            loss = -si_snr(est.float(), clean).mean()
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            scaler.step(opt)
            scaler.update()
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
            est = model(test_noisy)
        improvement = (si_snr(est.float(), test_clean) - si_snr(test_noisy, test_clean)).mean()
        print(f"epoch {epoch} train loss {loss.item():.3f} test SI-SNRi {improvement.item():.2f} dB scale {scaler.get_scale():.0f}")


if __name__ == "__main__":
    main()
