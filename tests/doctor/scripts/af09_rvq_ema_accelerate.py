import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator


class EMACodebook(nn.Module):
    def __init__(self, size, dim, decay=0.99, eps=1e-5):
        super().__init__()
        self.decay, self.eps = decay, eps
        embed = torch.randn(size, dim)
        self.register_buffer("embed", embed)
        self.register_buffer("cluster_size", torch.zeros(size))
        self.register_buffer("embed_avg", embed.clone())

    def encode(self, x):
        dist = x.pow(2).sum(-1, keepdim=True) - 2 * x @ self.embed.t() + self.embed.pow(2).sum(-1)
        return dist.argmin(-1)

    @torch.no_grad()
    def ema_update(self, x, codes):
        counts = torch.bincount(codes, minlength=self.embed.shape[0]).float()
        sums = torch.zeros_like(self.embed_avg).index_add_(0, codes, x)
        self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)
        self.embed_avg.mul_(self.decay).add_(sums, alpha=1 - self.decay)
        n = self.cluster_size.sum()
        size = (self.cluster_size + self.eps) / (n + self.embed.shape[0] * self.eps) * n
        self.embed.copy_(self.embed_avg / size.unsqueeze(1))


class ResidualVQ(nn.Module):
    def __init__(self, num_quantizers=4, size=64, dim=32):
        super().__init__()
        self.layers = nn.ModuleList([EMACodebook(size, dim) for _ in range(num_quantizers)])
        self._pending = []

    def forward(self, z):
        b, d, t = z.shape
        x = z.transpose(1, 2).reshape(-1, d)
        residual, quantized = x, torch.zeros_like(x)
        codes_all, self._pending = [], []
        for layer in self.layers:
            codes = layer.encode(residual)
            q = F.embedding(codes, layer.embed)
            if self.training:
                self._pending.append((layer, residual.detach(), codes))
            quantized = quantized + q
            residual = residual - q
            codes_all.append(codes)
        commit = F.mse_loss(x, quantized.detach())
        quantized = x + (quantized - x).detach()
        return quantized.view(b, t, d).transpose(1, 2), torch.stack(codes_all, -1), commit

    def update_codebooks(self):
        for layer, residual, codes in self._pending:
            layer.ema_update(residual, codes)
        self._pending = []


class RVQAutoencoder(nn.Module):
    def __init__(self, ch=48, dim=32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1, ch, 7, padding=3), nn.GELU(),
            nn.Conv1d(ch, ch, 8, stride=4, padding=2), nn.GELU(),
            nn.Conv1d(ch, dim, 8, stride=4, padding=2),
        )
        self.quantizer = ResidualVQ(dim=dim)
        self.decoder = nn.Sequential(
            nn.ConvTranspose1d(dim, ch, 8, stride=4, padding=2), nn.GELU(),
            nn.ConvTranspose1d(ch, ch, 8, stride=4, padding=2), nn.GELU(),
            nn.Conv1d(ch, 1, 7, padding=3),
        )

    def forward(self, wav):
        z = self.encoder(wav)
        z_q, codes, commit = self.quantizer(z)
        return self.decoder(z_q), codes, commit


def make_loader(n=128, length=2048, batch_size=16):
    t = torch.arange(length) / 8000
    f = 80 + 400 * torch.rand(n, 1)
    wav = torch.sin(2 * math.pi * f * t) * torch.rand(n, 1) + 0.02 * torch.randn(n, length)
    return torch.utils.data.DataLoader(wav.unsqueeze(1), batch_size=batch_size, shuffle=True)


def main():
    torch.manual_seed(0)
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    model = RVQAutoencoder()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    model, opt, loader = accelerator.prepare(model, opt, make_loader())

    for epoch in range(2):
        for wav in loader:
            with accelerator.autocast():
                wav_hat, codes, commit = model(wav)
                recon = F.l1_loss(wav_hat.float(), wav)
                loss = recon + 0.25 * commit.float()
            opt.zero_grad()
            accelerator.backward(loss)
            opt.step()
            accelerator.unwrap_model(model).quantizer.update_codebooks()
        used = codes[..., 0].unique().numel()
        accelerator.print(f"epoch {epoch}: loss {loss.item():.4f} recon {recon.item():.4f} codes used {used}")


if __name__ == "__main__":
    main()
