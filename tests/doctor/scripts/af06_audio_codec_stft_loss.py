import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def synth_batch(batch, length=8192, sr=16000, seed=None):
    g = torch.Generator().manual_seed(seed) if seed is not None else None
    t = torch.arange(length) / sr
    f0 = 110 + 330 * torch.rand(batch, 1, generator=g)
    phase = 2 * math.pi * f0 * t
    wave = 0.5 * torch.sin(phase) + 0.2 * torch.sin(3 * phase) + 0.05 * torch.randn(batch, length, generator=g)
    env = torch.linspace(1.0, 0.3, length)
    return (wave * env).unsqueeze(1)


class ResBlock1d(nn.Module):
    def __init__(self, ch, dilation):
        super().__init__()
        self.conv1 = nn.Conv1d(ch, ch, 7, padding=3 * dilation, dilation=dilation)
        self.conv2 = nn.Conv1d(ch, ch, 1)

    def forward(self, x):
        return x + self.conv2(F.elu(self.conv1(F.elu(x))))


class WaveCodec(nn.Module):
    def __init__(self, ch=32, latent=16, strides=(4, 4, 4)):
        super().__init__()
        enc = [nn.Conv1d(1, ch, 7, padding=3)]
        for s in strides:
            enc += [ResBlock1d(ch, 1), nn.Conv1d(ch, ch, 2 * s, stride=s, padding=s // 2)]
        enc += [nn.Conv1d(ch, latent, 3, padding=1)]
        self.encoder = nn.Sequential(*enc)
        dec = [nn.Conv1d(latent, ch, 7, padding=3)]
        for s in reversed(strides):
            dec += [nn.ConvTranspose1d(ch, ch, 2 * s, stride=s, padding=s // 2), ResBlock1d(ch, 1)]
        dec += [nn.Conv1d(ch, 1, 7, padding=3), nn.Tanh()]
        self.decoder = nn.Sequential(*dec)
        self.levels = 15

    def quantize(self, z):
        z = torch.tanh(z) * (self.levels // 2)
        return z + (torch.round(z) - z).detach()

    def forward(self, wav):
        z = self.encoder(wav)
        z_q = self.quantize(z)
        return self.decoder(z_q)[..., : wav.shape[-1]], z_q


class MultiResolutionSTFTLoss(nn.Module):
    def __init__(self, resolutions=((512, 128), (256, 64), (128, 32))):
        super().__init__()
        self.resolutions = resolutions

    def forward(self, x_hat, x):
        loss = 0.0
        for n_fft, hop in self.resolutions:
            window = torch.hann_window(n_fft, device=x.device, dtype=x.dtype)
            s_hat = torch.stft(x_hat.squeeze(1), n_fft, hop, window=window, return_complex=True).abs()
            s = torch.stft(x.squeeze(1), n_fft, hop, window=window, return_complex=True).abs()
            sc = torch.linalg.norm(s - s_hat) / torch.linalg.norm(s)
            mag = F.l1_loss(torch.log(s_hat.clamp_min(1e-5)), torch.log(s.clamp_min(1e-5)))
            loss = loss + sc + mag
        return loss / len(self.resolutions)


def main():
    torch.manual_seed(0)
    dtype = torch.bfloat16
    model = WaveCodec().to(dtype)
    spectral = MultiResolutionSTFTLoss()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.8, 0.99))

    for step in range(8):
        wav = synth_batch(4, seed=step).to(dtype)
        wav_hat, codes = model(wav)
        loss_wave = F.l1_loss(wav_hat, wav)
        loss_spec = spectral(wav_hat, wav)
        loss = loss_wave + 2.0 * loss_spec
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: l1 {loss_wave.item():.4f} stft {loss_spec.item():.4f} "
              f"codes used {codes.detach().unique().numel()}")


if __name__ == "__main__":
    main()
