"""Tiny neural audio codec (SoundStream/EnCodec-style): conv encoder, residual vector
quantiser with straight-through estimator, conv-transpose decoder, multi-resolution STFT +
L1 reconstruction losses and a hinge-loss waveform discriminator.  Accelerate bf16 autocast;
spectral losses and VQ distances are computed in fp32."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator

torch.manual_seed(0)
SR = 16000


def synth(bs, n=8000):
    t = torch.arange(n) / SR
    f0 = torch.empty(bs, 1).uniform_(100, 400)
    w = sum(torch.sin(2 * math.pi * k * f0 * t) / k for k in range(1, 5))
    am = 0.6 + 0.4 * torch.sin(2 * math.pi * torch.empty(bs, 1).uniform_(2, 8) * t)
    return (0.3 * w * am / 2.1 + 0.003 * torch.randn(bs, n)).unsqueeze(1)


class ResidualVQ(nn.Module):
    def __init__(self, n_q=3, K=64, dim=32):
        super().__init__()
        self.codebooks = nn.ParameterList([nn.Parameter(torch.randn(K, dim) * 0.5) for _ in range(n_q)])

    def forward(self, z):  # z: (B, D, T)
        x = z.transpose(1, 2).float()  # distances in fp32
        residual, quantized = x, torch.zeros_like(x)
        codes, commit, cb_loss = [], 0.0, 0.0
        for cb in self.codebooks:
            cbf = cb.float()
            d = residual.pow(2).sum(-1, keepdim=True) - 2 * residual @ cbf.T + cbf.pow(2).sum(-1)
            idx = d.argmin(-1)
            q = F.embedding(idx, cbf)
            commit = commit + F.mse_loss(residual, q.detach())
            cb_loss = cb_loss + F.mse_loss(q, residual.detach())
            q_st = residual + (q - residual).detach()
            quantized = quantized + q_st
            residual = residual - q.detach()
            codes.append(idx)
        return quantized.transpose(1, 2).to(z.dtype), torch.stack(codes, 1), commit, cb_loss


class Codec(nn.Module):
    def __init__(self, c=32, dim=32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1, c, 7, padding=3), nn.ELU(),
            nn.Conv1d(c, c, 8, stride=4, padding=2), nn.ELU(),
            nn.Conv1d(c, c, 8, stride=4, padding=2), nn.ELU(),
            nn.Conv1d(c, dim, 3, padding=1),
        )
        self.rvq = ResidualVQ(dim=dim)
        self.decoder = nn.Sequential(
            nn.Conv1d(dim, c, 3, padding=1), nn.ELU(),
            nn.ConvTranspose1d(c, c, 8, stride=4, padding=2), nn.ELU(),
            nn.ConvTranspose1d(c, c, 8, stride=4, padding=2), nn.ELU(),
            nn.Conv1d(c, 1, 7, padding=3), nn.Tanh(),
        )

    def forward(self, wav):
        z = self.encoder(wav)
        q, codes, commit, cb = self.rvq(z)
        return self.decoder(q), codes, commit, cb


class WaveDisc(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Conv1d(1, 16, 15, padding=7),
            nn.Conv1d(16, 32, 41, stride=4, padding=20, groups=4),
            nn.Conv1d(32, 32, 41, stride=4, padding=20, groups=8),
            nn.Conv1d(32, 1, 3, padding=1),
        ])

    def forward(self, x):
        feats = []
        for i, l in enumerate(self.layers):
            x = l(x)
            if i < len(self.layers) - 1:
                x = F.leaky_relu(x, 0.2)
            feats.append(x)
        return x, feats


def mr_stft_loss(y_hat, y, resolutions=((256, 64), (512, 128), (128, 32))):
    y_hat, y = y_hat.squeeze(1).float(), y.squeeze(1).float()
    loss = 0.0
    for n_fft, hop in resolutions:
        win = torch.hann_window(n_fft)
        S = torch.stft(y, n_fft, hop, window=win, return_complex=True).abs().clamp(min=1e-7)
        S_hat = torch.stft(y_hat, n_fft, hop, window=win, return_complex=True).abs().clamp(min=1e-7)
        sc = torch.linalg.norm(S - S_hat) / torch.linalg.norm(S)
        mag = F.l1_loss(torch.log(S_hat), torch.log(S))
        loss = loss + sc + mag
    return loss / len(resolutions)


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
G, D = Codec(), WaveDisc()
opt_g = torch.optim.AdamW(G.parameters(), lr=1e-3, betas=(0.8, 0.99))
opt_d = torch.optim.AdamW(D.parameters(), lr=1e-3, betas=(0.8, 0.99))
G, D, opt_g, opt_d = accelerator.prepare(G, D, opt_g, opt_d)

for step in range(15):
    wav = synth(8)
    # ---- discriminator ----
    with accelerator.autocast():
        y_hat, _, _, _ = G(wav)
        d_real, _ = D(wav)
        d_fake, _ = D(y_hat.detach())
        loss_d = F.relu(1 - d_real.float()).mean() + F.relu(1 + d_fake.float()).mean()
    opt_d.zero_grad()
    accelerator.backward(loss_d)
    opt_d.step()
    # ---- generator ----
    with accelerator.autocast():
        y_hat, codes, commit, cb = G(wav)
        d_fake, f_fake = D(y_hat)
        _, f_real = D(wav)
        adv = F.relu(1 - d_fake.float()).mean()
        fm = sum(F.l1_loss(a.float(), b.float().detach()) for a, b in zip(f_fake, f_real)) / len(f_fake)
        rec = F.l1_loss(y_hat.float(), wav) + mr_stft_loss(y_hat, wav)
        loss_g = rec * 10 + adv + 2 * fm + 0.25 * commit + cb
    opt_g.zero_grad()
    accelerator.backward(loss_g)
    accelerator.clip_grad_norm_(G.parameters(), 5.0)
    opt_g.step()
    if step % 5 == 0:
        usage = [len(torch.unique(codes[:, i])) for i in range(codes.shape[1])]
        accelerator.print(f"step {step:2d} G {loss_g.item():.3f} D {loss_d.item():.3f} rec {rec.item():.3f} codes used {usage}")

# bitrate / SNR report on a held-out batch
with torch.no_grad(), accelerator.autocast():
    test = synth(4)
    rec_wav, codes, _, _ = G(test)
err = rec_wav.float() - test
snr = 10 * torch.log10(test.pow(2).sum(-1) / err.pow(2).sum(-1).clamp(min=1e-12))
kbps = codes.shape[1] * math.log2(64) * (SR / 16) / 1000
print(f"held-out SNR {snr.mean().item():.2f} dB at {kbps:.1f} kbps")
