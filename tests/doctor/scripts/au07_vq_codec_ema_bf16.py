import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, SEG = 8000, 2048


class VectorQuantizerEMA(nn.Module):
    def __init__(self, n_codes=64, dim=32, decay=0.99, eps=1e-5):
        super().__init__()
        self.decay, self.eps = decay, eps
        embed = 0.1 * torch.randn(n_codes, dim)
        self.register_buffer("codebook", embed)
        self.register_buffer("cluster_size", torch.zeros(n_codes))
        self.register_buffer("embed_avg", embed.clone())

    def forward(self, z):
        flat = z.transpose(1, 2).reshape(-1, z.size(1))
        codes = torch.cdist(flat, self.codebook).argmin(-1)
        quant = self.codebook[codes].view(z.size(0), z.size(2), -1).transpose(1, 2)
        if self.training:
            with torch.no_grad():
                counts = torch.bincount(codes, minlength=self.codebook.size(0)).float()
                embed_sum = torch.zeros_like(self.embed_avg).index_add_(0, codes, flat)
                self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)
                self.embed_avg.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
                n = self.cluster_size.sum()
                size = (self.cluster_size + self.eps) / (n + self.codebook.size(0) * self.eps) * n
                self.codebook.copy_(self.embed_avg / size.unsqueeze(1))
        commit = F.mse_loss(z.float(), quant.detach())
        quant = z + (quant - z).detach()
        probs = F.one_hot(codes, self.codebook.size(0)).float().mean(0)
        return quant, commit, torch.exp(-(probs * torch.log(probs + 1e-10)).sum())


class Codec(nn.Module):
    def __init__(self, ch=64, dim=32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1, ch, 7, padding=3), nn.ELU(),
            nn.Conv1d(ch, ch, 8, stride=4, padding=2), nn.ELU(),
            nn.Conv1d(ch, ch, 8, stride=4, padding=2), nn.ELU(),
            nn.Conv1d(ch, dim, 3, padding=1),
        )
        self.quantizer = VectorQuantizerEMA(dim=dim)
        self.decoder = nn.Sequential(
            nn.Conv1d(dim, ch, 3, padding=1), nn.ELU(),
            nn.ConvTranspose1d(ch, ch, 8, stride=4, padding=2), nn.ELU(),
            nn.ConvTranspose1d(ch, ch, 8, stride=4, padding=2), nn.ELU(),
            nn.Conv1d(ch, 1, 7, padding=3), nn.Tanh(),
        )

    def forward(self, wav):
        quant, commit, ppl = self.quantizer(self.encoder(wav.unsqueeze(1)))
        return self.decoder(quant).squeeze(1), commit, ppl


def spectral_loss(x, y, n_fft=256):
    win = torch.hann_window(n_fft)
    X = torch.stft(x.float(), n_fft, n_fft // 4, window=win, return_complex=True).abs()
    Y = torch.stft(y.float(), n_fft, n_fft // 4, window=win, return_complex=True).abs()
    return F.l1_loss(torch.log(X + 1e-5), torch.log(Y + 1e-5))


def make_audio(n, gen):
    t = torch.arange(SEG) / SR
    f = 100 + 900 * torch.rand(n, 3, 1, generator=gen)
    a = torch.rand(n, 3, 1, generator=gen)
    chirp = torch.sin(2 * math.pi * (f * t + 200 * torch.rand(n, 3, 1, generator=gen) * t ** 2))
    return 0.5 * (a * chirp).sum(1) / a.sum(1)


def main():
    gen = torch.Generator().manual_seed(0)
    train, valid = make_audio(128, gen), make_audio(32, gen)
    model = Codec()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        model.train()
        for i in range(0, len(train), 16):
            wav = train[i:i + 16]
            with torch.autocast("cpu", dtype=torch.bfloat16):
                recon, commit, ppl = model(wav)
            loss = F.l1_loss(recon.float(), wav) + spectral_loss(recon, wav) + 0.25 * commit
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            recon, _, val_ppl = model(valid)
        err = recon.float() - valid
        snr = 10 * torch.log10(valid.pow(2).sum(-1) / err.pow(2).sum(-1)).mean()
        print(f"epoch {epoch} loss {loss.item():.4f} val SNR {snr.item():.2f} dB codebook ppl {val_ppl.item():.1f}")


if __name__ == "__main__":
    main()
