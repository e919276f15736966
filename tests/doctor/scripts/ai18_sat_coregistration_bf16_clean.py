import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(18)
rng = np.random.default_rng(18)
H = W = 48


def multitemporal_pair():
    yy, xx = np.mgrid[:H, :W].astype(np.float32)
    field = sum(rng.uniform(200, 600) * np.sin(xx / rng.uniform(3, 8) + rng.uniform(0, 6)) *
                np.cos(yy / rng.uniform(3, 8) + rng.uniform(0, 6)) for _ in range(4))
    ref = (2500 + field + rng.normal(0, 40, (H, W))).clip(0, 10000).astype(np.uint16)
    dy, dx = rng.uniform(-3, 3, 2)
    warp_y = (yy + dy + 0.8 * np.sin(xx / 10)).clip(0, H - 1).round().astype(int)
    warp_x = (xx + dx).clip(0, W - 1).round().astype(int)
    mov = ref[warp_y, warp_x].astype(np.float32) * rng.uniform(0.85, 1.15) + rng.normal(0, 40, (H, W))
    return ref, mov.clip(0, 10000).astype(np.uint16)


def band_norm(arr):
    x = torch.from_numpy(arr.astype(np.float32))
    return (x - x.mean()) / x.std().clamp_min(1.0)


class CoRegNet(nn.Module):
    def __init__(self, w=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(2, w, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(w, w, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(w, w, 3, padding=2, dilation=2), nn.LeakyReLU(0.2),
            nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
            nn.Conv2d(w, 2, 3, padding=1),
        )
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
        self.register_buffer("identity", torch.stack([xs, ys], -1)[None], persistent=False)

    def forward(self, moving, fixed):
        disp = self.net(torch.cat([moving, fixed], 1))
        grid = self.identity.to(disp.dtype) + disp.permute(0, 2, 3, 1) * (2.0 / max(H, W))
        warped = F.grid_sample(moving, grid.to(moving.dtype), align_corners=True, padding_mode="border")
        return warped, disp


def global_ncc(a, b, eps=1e-6):
    a, b = a.float().flatten(1), b.float().flatten(1)
    a = a - a.mean(1, keepdim=True)
    b = b - b.mean(1, keepdim=True)
    return ((a * b).sum(1) / (a.norm(dim=1) * b.norm(dim=1) + eps)).mean()


def diffusion_reg(disp):
    d = disp.float()
    return (d.diff(dim=2).pow(2).mean() + d.diff(dim=3).pow(2).mean()) / 2


def main():
    dtype = torch.bfloat16
    model = CoRegNet().to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for step in range(40):
        pairs = [multitemporal_pair() for _ in range(4)]
        fixed = torch.stack([band_norm(r) for r, _ in pairs])[:, None].to(dtype)
        moving = torch.stack([band_norm(m) for _, m in pairs])[:, None].to(dtype)
        warped, disp = model(moving, fixed)
        ncc = global_ncc(warped, fixed)
        loss = -ncc + 0.05 * diffusion_reg(disp)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 8 == 0 or step == 39:
            before = global_ncc(moving, fixed).item()
            print(f"step {step:02d} loss {loss.item():.4f} ncc before {before:.3f} after {ncc.item():.3f}")
    with tempfile.TemporaryDirectory() as d:
        np.save(f"{d}/displacement.npy", disp.detach().float().numpy())
        print("displacement field exported", tuple(disp.shape))


if __name__ == "__main__":
    main()
