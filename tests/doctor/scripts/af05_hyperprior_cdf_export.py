import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALES_MIN, SCALES_MAX, SCALES_LEVELS = 0.11, 256, 64
PRECISION = 16


def conv(i, o, k=5, s=2):
    return nn.Conv2d(i, o, k, stride=s, padding=k // 2)


def deconv(i, o, k=5, s=2):
    return nn.ConvTranspose2d(i, o, k, stride=s, padding=k // 2, output_padding=s - 1)


class GaussianConditional(nn.Module):
    def __init__(self, tail_mass=1e-9):
        super().__init__()
        self.tail_mass = tail_mass
        table = torch.exp(torch.linspace(math.log(SCALES_MIN), math.log(SCALES_MAX), SCALES_LEVELS))
        self.register_buffer("scale_table", table, persistent=False)
        self.register_buffer("quantized_cdf", torch.zeros(0, dtype=torch.int32))
        self.register_buffer("cdf_length", torch.zeros(0, dtype=torch.int32))
        self.register_buffer("offset", torch.zeros(0, dtype=torch.int32))

    @staticmethod
    def _std_cdf(x):
        return 0.5 * torch.erfc(-x / math.sqrt(2))

    def likelihood(self, y_hat, scales):
        scales = scales.clamp_min(SCALES_MIN)
        v = y_hat.abs()
        return (self._std_cdf((0.5 - v) / scales) - self._std_cdf((-0.5 - v) / scales)).clamp_min(1e-9)

    def update(self):
        multiplier = -torch.special.ndtri(torch.tensor(self.tail_mass / 2, dtype=torch.float64)).item()
        pmf_center = torch.ceil(self.scale_table * multiplier).int()
        pmf_length = 2 * pmf_center + 1
        max_length = int(pmf_length.max())
        samples = torch.arange(max_length).float() - pmf_center[:, None].float()
        upper = self._std_cdf((0.5 - samples.abs()) / self.scale_table[:, None])
        lower = self._std_cdf((-0.5 - samples.abs()) / self.scale_table[:, None])
        pmf = (upper - lower).clamp_min(0)
        cdf = torch.cumsum(pmf, dim=1)
        cdf = torch.round(cdf / cdf[:, -1:] * (1 << PRECISION)).int()
        cdf = torch.cat([torch.zeros_like(cdf[:, :1]), cdf], dim=1)
        self.quantized_cdf = cdf
        self.cdf_length = pmf_length + 1
        self.offset = -pmf_center

    def build_indexes(self, scales):
        scales = scales.clamp_min(SCALES_MIN)
        return (scales[..., None] > self.scale_table[:-1]).sum(-1).int()


class ScaleHyperprior(nn.Module):
    def __init__(self, N=24, M=32):
        super().__init__()
        self.g_a = nn.Sequential(conv(3, N), nn.GELU(), conv(N, N), nn.GELU(), conv(N, M))
        self.g_s = nn.Sequential(deconv(M, N), nn.GELU(), deconv(N, N), nn.GELU(), deconv(N, 3))
        self.h_a = nn.Sequential(conv(M, N, 3, 1), nn.ReLU(), conv(N, N))
        self.h_s = nn.Sequential(deconv(N, N), nn.ReLU(), conv(N, M, 3, 1), nn.Softplus())
        self.gaussian_conditional = GaussianConditional()

    def forward(self, x):
        y = self.g_a(x)
        z = self.h_a(y.abs())
        z_hat = z + torch.empty_like(z).uniform_(-0.5, 0.5)
        scales = self.h_s(z_hat)
        y_hat = y + torch.empty_like(y).uniform_(-0.5, 0.5)
        return self.g_s(y_hat), self.gaussian_conditional.likelihood(y_hat, scales)


def train_and_save(path):
    torch.manual_seed(0)
    model = ScaleHyperprior()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    images = F.avg_pool2d(torch.rand(16, 3, 64, 64), 5, stride=1, padding=2)
    for step in range(6):
        x = images[(step % 2) * 8:(step % 2) * 8 + 8]
        x_hat, lik = model(x)
        bpp = -torch.log2(lik).sum() / (x.shape[0] * 64 * 64)
        loss = 0.01 * 255 ** 2 * F.mse_loss(x_hat, x) + bpp
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f} bpp {bpp.item():.4f}")
    torch.save(model.state_dict(), path)


def export_tables(ckpt_path, out_dir):
    with torch.device("meta"):
        model = ScaleHyperprior()
    state = torch.load(ckpt_path, map_location="cpu", weights_only=True)
    model.load_state_dict(state, assign=True)
    model.eval()
    gc = model.gaussian_conditional
    gc.update()
    x = F.avg_pool2d(torch.rand(1, 3, 64, 64), 5, stride=1, padding=2)
    with torch.no_grad():
        scales = model.h_s(torch.round(model.h_a(model.g_a(x).abs())))
    indexes = gc.build_indexes(scales)
    tables = {"cdf": gc.quantized_cdf, "cdf_length": gc.cdf_length, "offset": gc.offset, "indexes": indexes}
    torch.save(tables, os.path.join(out_dir, "entropy_tables.pt"))
    print("exported", gc.quantized_cdf.shape[0], "cdf tables, max length", int(gc.cdf_length.max()))


def main():
    out_dir = tempfile.mkdtemp(prefix="codec_export_")
    ckpt = os.path.join(out_dir, "hyperprior.pt")
    train_and_save(ckpt)
    export_tables(ckpt, out_dir)


if __name__ == "__main__":
    main()
