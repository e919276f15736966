import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, N_FFT, HOP = 8000, 256, 64
N_BINS = N_FFT // 2 + 1


class ResidualVQ(nn.Module):
    def __init__(self, n_q=4, n_codes=128, dim=64):
        super().__init__()
        self.codebooks = nn.ParameterList(nn.Parameter(0.1 * torch.randn(n_codes, dim)) for _ in range(n_q))

    def forward(self, z):
        residual, quant, loss, codes = z, torch.zeros_like(z), 0.0, []
        for cb in self.codebooks:
            idx = torch.cdist(residual, cb.unsqueeze(0).expand(z.size(0), -1, -1)).argmin(-1)
            q = cb[idx]
            loss = loss + F.mse_loss(q, residual.detach()) + 0.25 * F.mse_loss(residual, q.detach())
            quant = quant + q
            residual = residual - q.detach()
            codes.append(idx)
        return z + (quant - z).detach(), loss, torch.stack(codes, -1)


class SpectralCodec(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT), persistent=False)
        self.encoder = nn.Sequential(nn.Linear(2 * N_BINS, 256), nn.GELU(), nn.Linear(256, dim))
        self.rvq = ResidualVQ(dim=dim)
        self.decoder = nn.Sequential(nn.Linear(dim, 256), nn.GELU(), nn.Linear(256, 2 * N_BINS))

    def forward(self, wav):
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True).transpose(1, 2)
        z = self.encoder(torch.cat([spec.real, spec.imag], -1))
        zq, vq_loss, codes = self.rvq(z)
        re, im = self.decoder(zq).chunk(2, -1)
        out = torch.istft(torch.complex(re, im).transpose(1, 2), N_FFT, HOP, window=self.window, length=wav.size(-1))
        return out, vq_loss, codes


def make_clips(n, gen, length=4000):
    t = torch.arange(length) / SR
    f = 200 + 600 * torch.rand(n, 2, 1, generator=gen)
    env = torch.exp(-3 * t) * (1 + 0.5 * torch.sin(2 * math.pi * 3 * t))
    return 0.4 * env * torch.sin(2 * math.pi * f * t).sum(1) / 2 + 0.01 * torch.randn(n, length, generator=gen)


def si_snr(est, ref):
    proj = (est * ref).sum(-1, keepdim=True) / ref.pow(2).sum(-1, keepdim=True) * ref
    return 10 * torch.log10(proj.pow(2).sum(-1) / (est - proj).pow(2).sum(-1))


def main():
    gen = torch.Generator().manual_seed(0)
    train, test = make_clips(128, gen), make_clips(32, gen)
    model = SpectralCodec()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        for i in range(0, len(train), 16):
            wav = train[i:i + 16]
            recon, vq_loss, _ = model(wav)
            loss = F.l1_loss(recon, wav) + vq_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} train loss {loss.item():.4f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "codec.pt")
        torch.save(model.state_dict(), path)
        with torch.device("meta"):
            codec = SpectralCodec()
        codec.load_state_dict(torch.load(path, map_location="cpu"), assign=True)
    codec.eval()
    with torch.no_grad():
        recon, _, codes = codec(test)
    kbps = codes.size(-1) * math.log2(128) * SR / HOP / 1000
    print(f"reloaded codec: test SI-SNR {si_snr(recon, test).mean().item():.2f} dB at {kbps:.1f} kbps")


if __name__ == "__main__":
    main()
