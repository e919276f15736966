import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_clip(batch=4, frames=3, h=32, w=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    base = torch.rand(batch, 3, h + 8, w + 8, generator=g)
    base = F.avg_pool2d(base, 3, stride=1, padding=1)
    clip = []
    for t in range(frames):
        dx, dy = 2 * t, t
        clip.append(base[:, :, dy:dy + h, dx:dx + w])
    return torch.stack(clip, dim=1)


class FlowNet(nn.Module):
    def __init__(self, ch=24):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(6, ch, 3, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(ch, ch, 3, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(ch, 2, 3, padding=1),
        )

    def forward(self, cur, ref):
        return self.body(torch.cat([cur, ref], dim=1))


class Warp(nn.Module):
    def __init__(self, h, w):
        super().__init__()
        ys, xs = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
        self.base_grid = torch.from_numpy(np.stack([xs, ys], axis=-1))[None]
        self.scale = torch.tensor([2.0 / (w - 1), 2.0 / (h - 1)])

    def forward(self, ref, flow):
        offset = flow.permute(0, 2, 3, 1) * self.scale
        grid = self.base_grid + offset
        return F.grid_sample(ref, grid, mode="bilinear", padding_mode="border", align_corners=True)


class ResidualCodec(nn.Module):
    def __init__(self, ch=32, latent=16):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, ch, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv2d(ch, latent, 5, stride=2, padding=2),
        )
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(latent, ch, 5, stride=2, padding=2, output_padding=1), nn.ReLU(),
            nn.ConvTranspose2d(ch, 3, 5, stride=2, padding=2, output_padding=1),
        )
        self.log_scale = nn.Parameter(torch.zeros(1, latent, 1, 1))

    def forward(self, r):
        y = self.enc(r)
        y_tilde = y + torch.empty_like(y).uniform_(-0.5, 0.5) if self.training else torch.round(y)
        scale = self.log_scale.exp()
        lap = torch.distributions.Laplace(0.0, scale)
        p = (lap.cdf(y_tilde + 0.5) - lap.cdf(y_tilde - 0.5)).clamp_min(1e-9)
        bits = -torch.log2(p).sum()
        return self.dec(y_tilde), bits


class PFrameCoder(nn.Module):
    def __init__(self, h, w):
        super().__init__()
        self.flow = FlowNet()
        self.warp = Warp(h, w)
        self.residual = ResidualCodec()

    def forward(self, cur, ref):
        flow = self.flow(cur, ref)
        pred = self.warp(ref, flow)
        r_hat, bits = self.residual(cur - pred)
        return pred + r_hat, bits


def main():
    torch.manual_seed(0)
    h = w = 32
    clips = make_clip(batch=8, frames=3, h=h, w=w)
    model = PFrameCoder(h, w)
    opt = torch.optim.Adam(model.parameters(), lr=2e-4)
    lmbda = 0.01
    num_pixels = clips.shape[0] * h * w

    for step in range(10):
        loss_sum = 0.0
        for t in range(1, clips.shape[1]):
            ref, cur = clips[:, t - 1], clips[:, t]
            rec, bits = model(cur, ref)
            bpp = bits / num_pixels
            mse = F.mse_loss(rec, cur)
            loss = lmbda * 255 ** 2 * mse + bpp
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += loss.item()
        print(f"step {step}: rd loss {loss_sum / (clips.shape[1] - 1):.4f}")


if __name__ == "__main__":
    main()
