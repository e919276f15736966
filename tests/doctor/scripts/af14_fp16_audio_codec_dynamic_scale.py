import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class DynamicLossScaler:
    def __init__(self, init_scale=2.0 ** 12, growth_interval=4, min_scale=1.0):
        self.scale = init_scale
        self.growth_interval = growth_interval
        self.min_scale = min_scale
        self.good_steps = 0

    def unscale_to(self, half_params, master_params):
        finite = True
        for h, m in zip(half_params, master_params):
            g = h.grad.float() / self.scale if h.grad is not None else torch.zeros_like(m)
            finite &= bool(torch.isfinite(g).all())
            m.grad = g
        return finite

    def update(self, finite):
        if finite:
            self.good_steps += 1
            if self.good_steps % self.growth_interval == 0:
                self.scale *= 2.0
        else:
            self.scale = max(self.scale / 2.0, self.min_scale)
            self.good_steps = 0


class Codec1d(nn.Module):
    def __init__(self, ch=32, latent=8):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1, ch, 7, padding=3), nn.ELU(),
            nn.Conv1d(ch, ch, 8, stride=4, padding=2), nn.ELU(),
            nn.Conv1d(ch, latent, 8, stride=4, padding=2),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose1d(latent, ch, 8, stride=4, padding=2), nn.ELU(),
            nn.ConvTranspose1d(ch, ch, 8, stride=4, padding=2), nn.ELU(),
            nn.Conv1d(ch, 1, 7, padding=3),
        )

    def forward(self, wav):
        z = self.encoder(wav)
        z_q = z + (torch.round(z * 4) / 4 - z).detach()
        return self.decoder(z_q)


def spectral_loss(x_hat, x, sizes=(256, 128, 64)):
    x_hat, x = x_hat.squeeze(1).float(), x.squeeze(1).float()
    total = 0.0
    for n_fft in sizes:
        window = torch.hann_window(n_fft)
        s_hat = torch.stft(x_hat, n_fft, n_fft // 4, window=window, return_complex=True).abs()
        s = torch.stft(x, n_fft, n_fft // 4, window=window, return_complex=True).abs()
        total = total + F.l1_loss(torch.log(s_hat + 1e-5), torch.log(s + 1e-5))
    return total / len(sizes)


def synth(batch, length=4096, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length) / 16000
    f = 100 + 500 * torch.rand(batch, 1, generator=g)
    amp = 0.3 + 0.5 * torch.rand(batch, 1, generator=g)
    return (amp * torch.sin(2 * math.pi * f * t) + 0.01 * torch.randn(batch, length, generator=g)).unsqueeze(1)


def main():
    torch.manual_seed(0)
    model = Codec1d().half()
    half_params = list(model.parameters())
    master = [p.detach().float().clone().requires_grad_(True) for p in half_params]
    opt = torch.optim.Adam(master, lr=1e-3)
    scaler = DynamicLossScaler()

    for step in range(12):
        wav = synth(4, seed=step)
        wav_hat = model(wav.half())
        loss = F.l1_loss(wav_hat.float(), wav) + spectral_loss(wav_hat, wav)
        model.zero_grad(set_to_none=True)
        (loss * scaler.scale).backward()
        finite = scaler.unscale_to(half_params, master)
        if finite:
            torch.nn.utils.clip_grad_norm_(master, 5.0)
            opt.step()
            with torch.no_grad():
                for h, m in zip(half_params, master):
                    h.copy_(m)
        opt.zero_grad(set_to_none=True)
        scaler.update(finite)
        if step % 3 == 0:
            print(f"step {step}: loss {loss.item():.4f} scale {scaler.scale:.0f} skipped={not finite}")

    print(f"final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
