import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GDN(nn.Module):
    def __init__(self, ch, inverse=False):
        super().__init__()
        self.inverse = inverse
        self.beta = nn.Parameter(torch.ones(ch))
        self.gamma = nn.Parameter(0.1 * torch.eye(ch))

    def forward(self, x):
        c = x.size(1)
        norm = F.conv2d(x * x, self.gamma.abs().view(c, c, 1, 1), self.beta.clamp_min(1e-6))
        return x * torch.sqrt(norm) if self.inverse else x * torch.rsqrt(norm)


def conv(i, o, k=5, s=2):
    return nn.Conv2d(i, o, k, stride=s, padding=k // 2)


def deconv(i, o, k=5, s=2):
    return nn.ConvTranspose2d(i, o, k, stride=s, padding=k // 2, output_padding=s - 1)


def likelihood_lower_bound(p, bound=1e-9):
    return p.clamp_min(bound)


class FactorizedPrior(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, ch, 1, 1))
        self.log_scale = nn.Parameter(torch.zeros(1, ch, 1, 1))

    def forward(self, z):
        z = z.float()
        s = self.log_scale.exp()
        upper = torch.sigmoid((z - self.loc + 0.5) / s)
        lower = torch.sigmoid((z - self.loc - 0.5) / s)
        return likelihood_lower_bound(upper - lower)


def gaussian_likelihood(y, scales, scale_min=0.11):
    y, scales = y.float(), scales.float().clamp_min(scale_min)
    v = y.abs()
    upper = 0.5 * torch.erfc(-(0.5 - v) / (scales * math.sqrt(2)))
    lower = 0.5 * torch.erfc(-(-0.5 - v) / (scales * math.sqrt(2)))
    return likelihood_lower_bound(upper - lower)


class ScaleHyperprior(nn.Module):
    def __init__(self, N=32, M=48):
        super().__init__()
        self.g_a = nn.Sequential(conv(3, N), GDN(N), conv(N, N), GDN(N), conv(N, M))
        self.g_s = nn.Sequential(deconv(M, N), GDN(N, True), deconv(N, N), GDN(N, True), deconv(N, 3))
        self.h_a = nn.Sequential(conv(M, N, 3, 1), nn.ReLU(), conv(N, N))
        self.h_s = nn.Sequential(deconv(N, N), nn.ReLU(), conv(N, M, 3, 1), nn.ReLU())
        self.z_prior = FactorizedPrior(N)

    @staticmethod
    def quantize(x, training):
        if training:
            return x + torch.empty_like(x).uniform_(-0.5, 0.5)
        return torch.round(x)

    def forward(self, x):
        y = self.g_a(x)
        z = self.h_a(y.abs())
        z_hat = self.quantize(z, self.training)
        scales = self.h_s(z_hat)
        y_hat = self.quantize(y, self.training)
        x_hat = self.g_s(y_hat)
        with torch.autocast("cpu", enabled=False):
            lik_y = gaussian_likelihood(y_hat, scales)
            lik_z = self.z_prior(z_hat)
        return x_hat, lik_y, lik_z


def rd_loss(x, x_hat, lik_y, lik_z, lmbda):
    n, _, h, w = x.shape
    bpp = (torch.log2(lik_y).sum() + torch.log2(lik_z).sum()) / (-n * h * w)
    mse = F.mse_loss(x_hat.float(), x.float())
    return lmbda * 255 ** 2 * mse + bpp, bpp, mse


def main():
    torch.manual_seed(0)
    images = F.avg_pool2d(torch.rand(32, 3, 64, 64), 5, stride=1, padding=2)
    model = ScaleHyperprior()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    lmbda = 0.0067

    for epoch in range(2):
        model.train()
        for i in range(0, images.shape[0], 8):
            x = images[i:i + 8]
            with torch.autocast("cpu", dtype=torch.bfloat16):
                x_hat, lik_y, lik_z = model(x)
            loss, bpp, mse = rd_loss(x, x_hat, lik_y, lik_z, lmbda)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} bpp {bpp.item():.4f} mse {mse.item():.5f}")

    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        x_hat, lik_y, lik_z = model(images[:8])
    loss, bpp, mse = rd_loss(images[:8], x_hat, lik_y, lik_z, lmbda)
    psnr = 10 * torch.log10(1.0 / mse)
    print(f"eval: bpp {bpp.item():.4f} psnr {psnr.item():.2f} dB")


if __name__ == "__main__":
    main()
