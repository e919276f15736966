import torch
import torch.nn as nn
import torch.nn.functional as F

LOSS_SCALE = 2.0 ** 16


def conv(i, o, k=5, s=2):
    return nn.Conv2d(i, o, k, stride=s, padding=k // 2)


def deconv(i, o, k=5, s=2):
    return nn.ConvTranspose2d(i, o, k, stride=s, padding=k // 2, output_padding=s - 1)


class FactorizedPriorCodec(nn.Module):
    def __init__(self, N=32, M=48):
        super().__init__()
        self.g_a = nn.Sequential(conv(3, N), nn.GELU(), conv(N, N), nn.GELU(), conv(N, M))
        self.g_s = nn.Sequential(deconv(M, N), nn.GELU(), deconv(N, N), nn.GELU(), deconv(N, 3))
        self.prior_loc = nn.Parameter(torch.zeros(1, M, 1, 1))
        self.prior_log_scale = nn.Parameter(torch.zeros(1, M, 1, 1))

    def likelihood(self, y_hat):
        s = self.prior_log_scale.exp()
        upper = torch.sigmoid((y_hat - self.prior_loc + 0.5) / s)
        lower = torch.sigmoid((y_hat - self.prior_loc - 0.5) / s)
        return (upper - lower).clamp_min(1e-4)

    def forward(self, x):
        y = self.g_a(x)
        y_hat = y + torch.empty_like(y).uniform_(-0.5, 0.5)
        return self.g_s(y_hat), self.likelihood(y_hat)


def make_images(n, size=48, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, 3, size, size, generator=g)
    return F.avg_pool2d(x, 5, stride=1, padding=2)


def main():
    torch.manual_seed(0)
    dtype = torch.float16
    model = FactorizedPriorCodec().to(dtype)
    master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
    opt = torch.optim.Adam(master, lr=1e-4)
    images = make_images(64)
    lmbda = 0.0483

    for step in range(12):
        x = images[(step * 8) % 64:(step * 8) % 64 + 8].to(dtype)
        x_hat, lik = model(x)
        n_pix = x.shape[0] * x.shape[2] * x.shape[3]
        bpp = torch.log2(lik).sum() / -n_pix
        mse = F.mse_loss(x_hat, x)
        loss = lmbda * 255 ** 2 * mse + bpp

        model.zero_grad(set_to_none=True)
        (loss * LOSS_SCALE).backward()
        for m, p in zip(master, model.parameters()):
            m.grad = p.grad.float() / LOSS_SCALE
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for m, p in zip(master, model.parameters()):
                p.copy_(m)

        if step % 2 == 0:
            print(f"step {step}: loss {loss.item():.4f} bpp {bpp.item():.4f} mse {mse.item():.5f}")


if __name__ == "__main__":
    main()
