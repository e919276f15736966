import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS, N_SPK = 8000, 256, 80, 40, 8


class Fbank(nn.Module):
    def __init__(self):
        super().__init__()
        m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
        hz = 700 * (10 ** (m / 2595) - 1)
        f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
        fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                           (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
        self.register_buffer("fb", fb)
        self.register_buffer("window", torch.hann_window(N_FFT))

    @torch.autocast("cpu", enabled=False)
    def forward(self, wav):
        spec = torch.stft(wav.float(), N_FFT, HOP, window=self.window, return_complex=True).abs().pow(2)
        x = torch.log(self.fb @ spec + 1e-6)
        return x - x.mean(-1, keepdim=True)


class SERes2Block(nn.Module):
    def __init__(self, ch, dilation):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(ch, ch, 3, padding=dilation, dilation=dilation), nn.ReLU(), nn.BatchNorm1d(ch))
        self.se = nn.Sequential(nn.Linear(ch, ch // 4), nn.ReLU(), nn.Linear(ch // 4, ch), nn.Sigmoid())

    def forward(self, x):
        h = self.conv(x)
        return x + h * self.se(h.mean(-1)).unsqueeze(-1)


class ECAPALite(nn.Module):
    def __init__(self, ch=128, emb=64):
        super().__init__()
        self.fbank = Fbank()
        self.stem = nn.Sequential(nn.Conv1d(N_MELS, ch, 5, padding=2), nn.ReLU(), nn.BatchNorm1d(ch))
        self.blocks = nn.Sequential(SERes2Block(ch, 2), SERes2Block(ch, 3), SERes2Block(ch, 4))
        self.attn = nn.Sequential(nn.Conv1d(ch, 64, 1), nn.Tanh(), nn.Conv1d(64, ch, 1))
        self.embed = nn.Linear(2 * ch, emb)

    def forward(self, wav):
        h = self.blocks(self.stem(self.fbank(wav)))
        w = torch.softmax(self.attn(h).float(), dim=-1)
        mu = (h.float() * w).sum(-1)
        sigma = ((h.float() ** 2 * w).sum(-1) - mu ** 2).clamp(min=1e-5).sqrt()
        return self.embed(torch.cat([mu, sigma], -1))


class AAMSoftmax(nn.Module):
    def __init__(self, emb, n_cls, margin=0.2, scale=30.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_cls, emb) * 0.01)
        self.m, self.s = margin, scale

    def forward(self, emb, labels):
        cos = F.linear(F.normalize(emb.float()), F.normalize(self.weight.float())).clamp(-1 + 1e-7, 1 - 1e-7)
        target = torch.cos(torch.acos(cos) + self.m)
        onehot = F.one_hot(labels, cos.size(1)).bool()
        return F.cross_entropy(self.s * torch.where(onehot, target, cos), labels)


def make_utts(n_per_spk, gen):
    t = torch.arange(SR) / SR
    wavs, spk = [], []
    for s in range(N_SPK):
        f0, formants = 110 + 25 * s, 1 + (s % 4)
        for _ in range(n_per_spk):
            pitch = f0 * (1 + 0.05 * torch.randn(1, generator=gen))
            wav = sum(torch.sin(2 * math.pi * k * pitch * t) / (1 + abs(k - formants)) for k in range(1, 7))
            wavs.append(0.2 * wav + 0.02 * torch.randn(SR, generator=gen))
            spk.append(s)
    return torch.stack(wavs), torch.tensor(spk)


def main():
    gen = torch.Generator().manual_seed(0)
    wavs, spk = make_utts(12, gen)
    test_wavs, test_spk = make_utts(4, gen)
    model, head = ECAPALite(), AAMSoftmax(64, N_SPK)
    opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=1e-3)
    for epoch in range(4):
        model.train()
        perm = torch.randperm(len(wavs))
        for i in range(0, len(perm), 16):
            idx = perm[i:i + 16]
            with torch.autocast("cpu", dtype=torch.bfloat16):
                emb = model(wavs[idx])
            loss = head(emb, spk[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            e = F.normalize(model(test_wavs).float())
        sim = e @ e.t()
        same = test_spk[:, None] == test_spk[None]
        off_diag = ~torch.eye(len(e), dtype=torch.bool)
        gap = sim[same & off_diag].mean() - sim[~same].mean()
        print(f"epoch {epoch} aam loss {loss.item():.3f} same-diff cosine gap {gap.item():.3f}")


if __name__ == "__main__":
    main()
