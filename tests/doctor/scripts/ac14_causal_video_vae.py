import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

FRAMES, SIZE = 9, 32  # 1 + 8: first frame encoded alone, causal in time
MEAN = torch.tensor([0.45, 0.45, 0.45]).view(1, 3, 1, 1, 1)
STD = torch.tensor([0.225, 0.225, 0.225]).view(1, 3, 1, 1, 1)


def synthetic_videos(bs):
    t = torch.arange(FRAMES).float().view(1, 1, FRAMES, 1, 1)
    yy = torch.arange(SIZE).float().view(1, 1, 1, SIZE, 1)
    xx = torch.arange(SIZE).float().view(1, 1, 1, 1, SIZE)
    phase = torch.rand(bs, 3, 1, 1, 1) * 6.28
    speed = torch.rand(bs, 1, 1, 1, 1) * 0.6 + 0.2
    video = 0.5 + 0.4 * torch.sin(0.35 * xx + 0.2 * yy - speed * t + phase)
    return (video.clamp(0, 1) - MEAN) / STD


class CausalConv3d(nn.Module):
    def __init__(self, cin, cout, kernel=3, stride=(1, 1, 1)):
        super().__init__()
        self.time_pad = kernel - 1
        self.conv = nn.Conv3d(cin, cout, kernel, stride=stride, padding=(0, kernel // 2, kernel // 2))

    def forward(self, x):
        first = x[:, :, :1].expand(-1, -1, self.time_pad, -1, -1)
        return self.conv(torch.cat([first, x], dim=2))


class VideoVAE(nn.Module):
    def __init__(self, ch=16, z_ch=4):
        super().__init__()
        self.enc = nn.Sequential(
            CausalConv3d(3, ch, stride=(1, 2, 2)), nn.SiLU(),
            CausalConv3d(ch, ch * 2, stride=(1, 2, 2)), nn.SiLU(),
            CausalConv3d(ch * 2, z_ch * 2),
        )
        self.dec_in = CausalConv3d(z_ch, ch * 2)
        self.dec_mid = CausalConv3d(ch * 2, ch)
        self.dec_out = CausalConv3d(ch, 3)

    def encode(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=1)
        return mu, logvar.clamp(-20, 10)

    def decode(self, z):
        h = F.silu(self.dec_in(z))
        h = F.interpolate(h, scale_factor=(1, 2, 2), mode="nearest")
        h = F.silu(self.dec_mid(h))
        h = F.interpolate(h, scale_factor=(1, 2, 2), mode="nearest")
        return self.dec_out(h)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.decode(z), mu, logvar


def vae_loss(recon, x, mu, logvar, beta=1e-3):
    rec = F.mse_loss(recon, x, reduction="sum") / x.shape[0]
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
    return rec + beta * kl, rec, kl


def main():
    model = VideoVAE().half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    for step in range(6):
        x = synthetic_videos(4).half()
        recon, mu, logvar = model(x)
        loss, rec, kl = vae_loss(recon, x, mu, logvar)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        if step % 2 == 0:
            print(f"step {step:2d} loss {loss.item():.2f} rec {rec.item():.2f} kl {kl.item():.2f}")

    model.eval()
    with torch.no_grad():
        x = synthetic_videos(4).half()
        mu, _ = model.encode(x)
        recon = model.decode(mu)
        psnr = 10 * torch.log10(1 / F.mse_loss(recon.float() * STD, x.float() * STD))
        print(f"latent shape {tuple(mu.shape)}  recon psnr {psnr.item():.2f} dB")


if __name__ == "__main__":
    main()
