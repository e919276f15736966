import torch
import torch.nn as nn
import torch.nn.functional as F


class ResBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(ch, ch, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


class STECodec(nn.Module):
    def __init__(self, N=32, M=32):
        super().__init__()
        self.g_a = nn.Sequential(
            nn.Conv2d(3, N, 5, 2, 2), ResBlock(N), nn.Conv2d(N, N, 5, 2, 2), ResBlock(N), nn.Conv2d(N, M, 5, 2, 2))
        self.g_s = nn.Sequential(
            nn.ConvTranspose2d(M, N, 5, 2, 2, 1), ResBlock(N), nn.ConvTranspose2d(N, N, 5, 2, 2, 1), ResBlock(N),
            nn.ConvTranspose2d(N, 3, 5, 2, 2, 1))
        self.log_scale = nn.Parameter(torch.zeros(1, M, 1, 1))
        self.grad_gain = torch.linspace(1.0, 0.25, M).view(1, M, 1, 1)

    def quantize(self, y):
        y_hat = y + (torch.round(y) - y).detach()
        if self.training and y_hat.requires_grad:
            y_hat.register_hook(lambda g: g * self.grad_gain)
        return y_hat

    def rate(self, y_hat):
        s = self.log_scale.exp()
        p = torch.sigmoid((y_hat + 0.5) / s) - torch.sigmoid((y_hat - 0.5) / s)
        return -torch.log2(p.clamp_min(1e-6)).sum()

    def forward(self, x):
        y = self.g_a(x)
        y_hat = self.quantize(y)
        return self.g_s(y_hat), self.rate(y_hat)


def image_batches(num, batch, size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    grid = torch.linspace(0, 1, size)
    for _ in range(num):
        fx, fy = torch.rand(2, batch, 1, 1, 1, generator=g) * 6
        phase = torch.rand(batch, 3, 1, 1, generator=g) * 6.28
        img = 0.5 + 0.4 * torch.sin(fx * grid.view(1, 1, 1, -1) * 6.28 + fy * grid.view(1, 1, -1, 1) * 6.28 + phase)
        yield img


def main():
    torch.manual_seed(0)
    dtype = torch.bfloat16
    model = STECodec().to(dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4, weight_decay=0.0)
    lmbda = 0.0067

    model.train()
    for step, x in enumerate(image_batches(10, 8)):
        x = x.to(dtype)
        x_hat, bits = model(x)
        bpp = bits / (x.shape[0] * x.shape[2] * x.shape[3])
        mse = F.mse_loss(x_hat.float(), x.float())
        loss = lmbda * 255 ** 2 * mse + bpp.float()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f} bpp {bpp.item():.4f} psnr {-10 * torch.log10(mse).item():.2f}")


if __name__ == "__main__":
    main()
