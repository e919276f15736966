import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class GDN(nn.Module):
    def __init__(self, channels, inverse=False, beta_min=1e-6, gamma_init=0.1):
        super().__init__()
        self.inverse = inverse
        self.beta_min = beta_min
        self.beta = nn.Parameter(torch.ones(channels))
        self.gamma = nn.Parameter(gamma_init * torch.eye(channels))

    def forward(self, x):
        c = x.size(1)
        beta = self.beta.clamp_min(self.beta_min)
        gamma = self.gamma.abs().view(c, c, 1, 1)
        norm = F.conv2d(x * x, gamma, beta)
        norm = torch.sqrt(norm)
        return x * norm if self.inverse else x / norm


def deconv(cin, cout, k=5, s=2):
    return nn.ConvTranspose2d(cin, cout, k, stride=s, padding=k // 2, output_padding=s - 1)


class SynthesisTransform(nn.Module):
    def __init__(self, N=32, M=48):
        super().__init__()
        self.g_s = nn.Sequential(
            deconv(M, N), GDN(N, inverse=True),
            deconv(N, N), GDN(N, inverse=True),
            deconv(N, N), GDN(N, inverse=True),
            deconv(N, 3),
        )

    def forward(self, y_hat):
        return self.g_s(y_hat)


def make_cache(path, n=64, M=48, h=4, w=4, seed=0):
    rng = np.random.default_rng(seed)
    latents = rng.laplace(0.0, 20.0, size=(n, M, h, w)).astype(np.float32)
    latents = np.round(latents)
    images = rng.uniform(0.0, 1.0, size=(n, 3, h * 16, w * 16)).astype(np.float32)
    np.savez(path, latents=latents, images=images)


def batches(path, batch_size, dtype):
    data = np.load(path)
    y = torch.from_numpy(data["latents"])
    x = torch.from_numpy(data["images"])
    perm = torch.randperm(y.shape[0])
    for i in range(0, y.shape[0], batch_size):
        idx = perm[i:i + batch_size]
        yield y[idx].to(dtype), x[idx].to(dtype)


def main():
    torch.manual_seed(0)
    dtype = torch.float16
    workdir = tempfile.mkdtemp(prefix="igdn_ft_")
    cache = os.path.join(workdir, "latent_cache.npz")
    make_cache(cache)

    decoder = SynthesisTransform().to(dtype)
    opt = torch.optim.Adam(decoder.parameters(), lr=1e-4, eps=1e-4)

    for epoch in range(2):
        total, steps = 0.0, 0
        for y_hat, x in batches(cache, batch_size=16, dtype=dtype):
            x_hat = decoder(y_hat)
            loss = F.mse_loss(x_hat.float(), x.float())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.item()
            steps += 1
        print(f"epoch {epoch}: mse {total / steps:.5f}")

    torch.save(decoder.state_dict(), os.path.join(workdir, "decoder_ft.pt"))
    print("saved to", workdir)


if __name__ == "__main__":
    main()
