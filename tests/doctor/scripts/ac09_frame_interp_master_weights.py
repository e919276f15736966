import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

H, W = 32, 32


def make_triplets(bs):
    """Frame t0, t1, t2 of a textured patch translating with constant velocity; we predict t1."""
    tex = F.avg_pool2d(torch.rand(bs, 3, H + 16, W + 16), 3, 1, 1)
    vel = torch.randint(-3, 4, (bs, 2))
    frames = []
    for t in range(3):
        shifted = torch.stack([torch.roll(tex[i], (int(vel[i, 0]) * t, int(vel[i, 1]) * t), (1, 2)) for i in range(bs)])
        frames.append(shifted[..., 8:-8, 8:-8])
    return frames


class InterpNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.down1 = nn.Sequential(nn.Conv2d(6, c, 3, padding=1), nn.LeakyReLU(0.1))
        self.down2 = nn.Sequential(nn.Conv2d(c, c * 2, 3, stride=2, padding=1), nn.LeakyReLU(0.1))
        self.mid = nn.Sequential(nn.Conv2d(c * 2, c * 2, 3, padding=1), nn.LeakyReLU(0.1))
        self.up = nn.ConvTranspose2d(c * 2, c, 4, stride=2, padding=1)
        self.out = nn.Conv2d(c * 2, 4, 3, padding=1)

    def forward(self, f0, f2):
        x1 = self.down1(torch.cat([f0, f2], 1))
        x2 = self.mid(self.down2(x1))
        y = self.out(torch.cat([F.leaky_relu(self.up(x2), 0.1), x1], 1))
        blend = torch.sigmoid(y[:, :1])
        residual = torch.tanh(y[:, 1:]) * 0.5
        return blend * f0 + (1 - blend) * f2 + residual


def charbonnier(pred, target, eps=1e-3):
    return torch.sqrt((pred.float() - target.float()) ** 2 + eps ** 2).mean()


def main():
    master = InterpNet()
    model = copy.deepcopy(master).half()
    opt = torch.optim.Adam(master.parameters(), lr=1e-3)
    scale, good_steps, growth_interval = 2.0 ** 14, 0, 10

    for step in range(30):
        f0, f1, f2 = make_triplets(4)
        pred = model(f0.half(), f2.half())
        loss = charbonnier(pred, f1)
        model.zero_grad(set_to_none=True)
        (loss * scale).backward()

        grads = [p.grad.float() / scale for p in model.parameters()]
        if not all(torch.isfinite(g).all() for g in grads):
            scale /= 2
            good_steps = 0
            print(f"step {step:2d} overflow, skipping; loss scale -> {scale:.0f}")
            continue
        for p32, g in zip(master.parameters(), grads):
            p32.grad = g
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for p16, p32 in zip(model.parameters(), master.parameters()):
                p16.copy_(p32)
        good_steps += 1
        if good_steps % growth_interval == 0:
            scale = min(scale * 2, 2.0 ** 24)
        if step % 5 == 0:
            print(f"step {step:2d} charbonnier {loss.item():.4f} scale {scale:.0f}")

    with torch.no_grad():
        f0, f1, f2 = make_triplets(16)
        pred = model(f0.half(), f2.half()).float()
        mse = F.mse_loss(pred.clamp(0, 1), f1)
        print(f"eval psnr {10 * torch.log10(1 / mse).item():.2f} dB, baseline "
              f"{10 * torch.log10(1 / F.mse_loss((f0 + f2) / 2, f1)).item():.2f} dB")


if __name__ == "__main__":
    main()
