import torch
import torch.nn as nn
import torch.nn.functional as F

LAMBDAS = [0.0018, 0.0035, 0.0067, 0.013, 0.025, 0.0483]


def moving_squares(batch, frames=4, size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    video = torch.full((batch, frames, 3, size, size), 0.2)
    pos = torch.randint(0, size // 2, (batch, 2), generator=g)
    vel = torch.randint(1, 3, (batch, 2), generator=g)
    color = torch.rand(batch, 3, generator=g)
    for b in range(batch):
        for t in range(frames):
            y, x = (pos[b] + t * vel[b]) % (size - 8)
            video[b, t, :, y:y + 8, x:x + 8] = color[b].view(3, 1, 1)
    return video + 0.02 * torch.randn(video.shape, generator=g)


class GainedResidualCoder(nn.Module):
    def __init__(self, N=32, M=24, levels=len(LAMBDAS)):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(6, N, 5, 2, 2), nn.GELU(), nn.Conv2d(N, N, 5, 2, 2), nn.GELU(), nn.Conv2d(N, M, 5, 2, 2))
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(M + 3, N, 5, 2, 2, 1), nn.GELU(),
            nn.ConvTranspose2d(N, N, 5, 2, 2, 1), nn.GELU(),
            nn.ConvTranspose2d(N, 3, 5, 2, 2, 1))
        self.gain = nn.Embedding(levels, M)
        self.inv_gain = nn.Embedding(levels, M)
        nn.init.constant_(self.gain.weight, 1.0)
        nn.init.constant_(self.inv_gain.weight, 1.0)
        self.log_b = nn.Parameter(torch.zeros(1, M, 1, 1))

    def forward(self, cur, pred, level):
        residual = cur - pred
        g = self.gain(level).view(1, -1, 1, 1)
        y = self.enc(torch.cat([residual, pred], 1)) * g
        y_hat = y + torch.empty_like(y).uniform_(-0.5, 0.5)
        b = self.log_b.exp()
        lik = 0.5 * (torch.exp(-(y_hat.abs() - 0.5).clamp_min(0) / b) - torch.exp(-(y_hat.abs() + 0.5) / b))
        y_dec = y_hat * self.inv_gain(level).view(1, -1, 1, 1)
        ctx = F.interpolate(pred, size=y_dec.shape[-2:], mode="bilinear", align_corners=False)
        r_hat = self.dec(torch.cat([y_dec, ctx], 1))
        return pred + r_hat, lik


def main():
    torch.manual_seed(0)
    dtype = torch.float16
    model = GainedResidualCoder().to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    video = moving_squares(16)

    for step in range(12):
        level = torch.randint(0, len(LAMBDAS), (1,))
        idx = torch.randperm(video.shape[0])[:8]
        clip = video[idx].to(dtype)
        loss_total = 0.0
        for t in range(1, clip.shape[1]):
            cur, ref = clip[:, t], clip[:, t - 1]
            rec, lik = model(cur, ref, level)
            bpp = -torch.log2(lik.float().clamp_min(1e-9)).sum() / (cur.shape[0] * cur.shape[-1] * cur.shape[-2])
            mse = F.mse_loss(rec.float(), cur.float())
            loss = LAMBDAS[level.item()] * 255 ** 2 * mse + bpp
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_total += loss.item()
        print(f"step {step} (q={level.item()}): rd loss {loss_total / (clip.shape[1] - 1):.4f}")


if __name__ == "__main__":
    main()
