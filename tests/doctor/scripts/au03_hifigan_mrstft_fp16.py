import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, HOP, N_MELS, SEG = 8000, 64, 40, 4096


def mel_basis(n_fft=256):
    m = torch.linspace(0, 2595 * math.log10(1 + (SR / 2) / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    freqs = torch.linspace(0, SR / 2, n_fft // 2 + 1)
    lo, c, hi = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    return torch.clamp(torch.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)), min=0)


MEL_BASIS, MEL_WINDOW = mel_basis(), torch.hann_window(256)


def log_mel(wav):
    spec = torch.stft(wav, 256, HOP, window=MEL_WINDOW, center=True, return_complex=True).abs()
    return torch.log(torch.clamp(MEL_BASIS @ spec, min=1e-5))[..., : wav.size(-1) // HOP]


class ResBlock(nn.Module):
    def __init__(self, ch, dilations=(1, 3, 5)):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(ch, ch, 3, dilation=d, padding=d) for d in dilations)

    def forward(self, x):
        for conv in self.convs:
            x = x + conv(F.leaky_relu(x, 0.1))
        return x


class Generator(nn.Module):
    def __init__(self, ch=64, rates=(4, 4, 4)):
        super().__init__()
        self.conv_pre = nn.Conv1d(N_MELS, ch, 7, padding=3)
        self.ups, self.blocks = nn.ModuleList(), nn.ModuleList()
        for r in rates:
            self.ups.append(nn.ConvTranspose1d(ch, ch // 2, 2 * r, r, padding=r // 2))
            self.blocks.append(ResBlock(ch // 2))
            ch //= 2
        self.conv_post = nn.Conv1d(ch, 1, 7, padding=3)

    def forward(self, mel):
        x = self.conv_pre(mel)
        for up, block in zip(self.ups, self.blocks):
            x = block(up(F.leaky_relu(x, 0.1)))
        return torch.tanh(self.conv_post(F.leaky_relu(x, 0.1))).squeeze(1)


class MultiResolutionSTFTLoss(nn.Module):
    def __init__(self, resolutions=((512, 128), (256, 64), (128, 32)), eps=1e-10):
        super().__init__()
        self.resolutions, self.eps = resolutions, eps

    def magnitude(self, x, n_fft, hop):
        window = torch.hann_window(n_fft, device=x.device)
        return torch.stft(x.float(), n_fft, hop, window=window, return_complex=True).abs().to(x.dtype)

    def forward(self, y_hat, y):
        sc_loss, mag_loss = 0.0, 0.0
        for n_fft, hop in self.resolutions:
            p, t = self.magnitude(y_hat, n_fft, hop), self.magnitude(y, n_fft, hop)
            sc_loss = sc_loss + torch.linalg.norm(t - p) / torch.linalg.norm(t)
            mag_loss = mag_loss + F.l1_loss(torch.log(p + self.eps), torch.log(t + self.eps))
        return (sc_loss + mag_loss) / len(self.resolutions)


def make_clips(n, gen):
    t = torch.arange(SEG) / SR
    clips = []
    for _ in range(n):
        f0 = 150 + 250 * torch.rand(1, generator=gen)
        voiced = 0.4 * torch.sin(2 * math.pi * f0 * t) + 0.2 * torch.sin(2 * math.pi * 2 * f0 * t + 0.3)
        start = int(torch.randint(SEG // 8, SEG // 3, (1,), generator=gen))
        gate = torch.zeros(SEG)
        gate[start:start + SEG // 2] = 1.0
        clips.append(voiced * gate)
    return torch.stack(clips)


def main():
    gen = torch.Generator().manual_seed(0)
    train = make_clips(24, gen)
    gen_model = Generator()
    stft_loss = MultiResolutionSTFTLoss()
    opt = torch.optim.AdamW(gen_model.parameters(), lr=2e-4, betas=(0.8, 0.99))
    scaler = torch.amp.GradScaler("cpu")
    for epoch in range(3):
        for i in range(0, len(train), 4):
            wav = train[i:i + 4]
            mel = log_mel(wav)
            with torch.autocast("cpu", dtype=torch.float16):
                y_hat = gen_model(mel)
                loss = stft_loss(y_hat, wav.to(y_hat.dtype)) + 0.5 * F.l1_loss(log_mel(y_hat.float()), mel)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(gen_model.parameters(), 10.0)
            scaler.step(opt)
            scaler.update()
        print(f"epoch {epoch} generator loss {loss.item():.4f} scale {scaler.get_scale():.0f}")


if __name__ == "__main__":
    main()
