import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def laplace_cdf(x, scale):
    neg = 0.5 * torch.exp(-x.abs() / scale)
    return torch.where(x < 0, neg, 1.0 - neg)


def laplace_likelihood(y_hat, mu, scale):
    v = -(y_hat - mu).abs()
    return laplace_cdf(v + 0.5, scale) - laplace_cdf(v - 0.5, scale)


class MeanScaleEntropyModel(nn.Module):
    def __init__(self, M=32, N=24, channel_scale=None):
        super().__init__()
        self.h_a = nn.Sequential(
            nn.Conv2d(M, N, 3, padding=1), nn.LeakyReLU(),
            nn.Conv2d(N, N, 5, stride=2, padding=2),
        )
        self.h_s = nn.Sequential(
            nn.ConvTranspose2d(N, N, 5, stride=2, padding=2, output_padding=1), nn.LeakyReLU(),
            nn.Conv2d(N, 2 * M, 3, padding=1),
        )
        init = torch.ones(M) if channel_scale is None else channel_scale
        self.log_scale_bias = nn.Parameter(init.clamp_min(0.11).log().view(1, M, 1, 1))
        self.z_log_scale = nn.Parameter(torch.zeros(1, N, 1, 1))

    def forward(self, y):
        z = self.h_a(y)
        if self.training:
            z_hat = z + torch.empty_like(z).uniform_(-0.5, 0.5)
            y_hat = y + torch.empty_like(y).uniform_(-0.5, 0.5)
        else:
            z_hat, y_hat = torch.round(z), torch.round(y)
        mu, raw = self.h_s(z_hat).chunk(2, dim=1)
        scale = torch.exp(self.log_scale_bias + 0.1 * raw).clamp_min(0.11)
        lik_y = laplace_likelihood(y_hat, mu, scale)
        lik_z = laplace_likelihood(z_hat, torch.zeros_like(z_hat), self.z_log_scale.exp())
        return lik_y, lik_z


def make_latent_cache(path, n=64, M=32, hw=8, seed=0):
    rng = np.random.default_rng(seed)
    channel_scale = np.logspace(-1.5, 0.8, M)[None, :, None, None]
    y = rng.laplace(0.0, 1.0, size=(n, M, hw, hw)) * channel_scale
    spikes = rng.random(size=y.shape) < 0.004
    y = np.where(spikes, rng.choice([-4.0, -3.0, 3.0, 4.0], size=y.shape), y)
    np.save(path, y.astype(np.float32))


def bits_per_pixel(lik_y, lik_z, num_pixels):
    return -(torch.log2(lik_y).sum() + torch.log2(lik_z).sum()) / num_pixels


def main():
    torch.manual_seed(0)
    path = os.path.join(tempfile.mkdtemp(prefix="latents_"), "y.npy")
    make_latent_cache(path)
    latents = torch.from_numpy(np.load(path))
    train, test = latents[:48], latents[48:]
    pixels_per_latent = 16 * 16

    model = MeanScaleEntropyModel(channel_scale=train.abs().mean(dim=(0, 2, 3)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(15):
        y = train[(step * 8) % 48:(step * 8) % 48 + 8]
        lik_y, lik_z = model(y)
        bpp = bits_per_pixel(lik_y, lik_z, y.shape[0] * y.shape[2] * y.shape[3] * pixels_per_latent)
        opt.zero_grad()
        bpp.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step}: train bpp {bpp.item():.4f}")

    model = model.half().eval()
    total_bits, total_pixels = 0.0, 0
    with torch.no_grad():
        for i in range(0, test.shape[0], 8):
            y = test[i:i + 8].half()
            lik_y, lik_z = model(y)
            n = y.shape[0] * y.shape[2] * y.shape[3] * pixels_per_latent
            total_bits += (bits_per_pixel(lik_y.float(), lik_z.float(), n) * n).item()
            total_pixels += n
    print(f"eval: bpp {total_bits / total_pixels:.4f}")


if __name__ == "__main__":
    main()
