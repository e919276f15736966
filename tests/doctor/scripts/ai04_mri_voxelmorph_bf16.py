import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
rng = np.random.default_rng(4)
SHAPE = (16, 16, 16)


def synth_pair():
    zz, yy, xx = np.indices(SHAPE).astype(np.float32)
    c = np.array(SHAPE) / 2 + rng.normal(0, 1.0, 3)
    r = ((zz - c[0]) ** 2 / 30 + (yy - c[1]) ** 2 / 20 + (xx - c[2]) ** 2 / 25)
    fixed = (np.exp(-r) * 3000 + rng.normal(100, 20, SHAPE)).clip(0, 65535).astype(np.uint16)
    shift = rng.integers(-2, 3, 3)
    moving = np.roll(fixed, tuple(shift), axis=(0, 1, 2))
    return fixed, moving


def to_unit(vol_u16):
    v = torch.from_numpy(vol_u16.astype(np.float32))
    lo, hi = torch.quantile(v, 0.01), torch.quantile(v, 0.99)
    return ((v - lo) / (hi - lo)).clamp(0, 1)


class SpatialTransformer(nn.Module):
    def __init__(self, size):
        super().__init__()
        vectors = [torch.arange(s, dtype=torch.float32) for s in size]
        self.grid = torch.stack(torch.meshgrid(*vectors, indexing="ij"))[None]
        self.size = size

    def forward(self, src, flow):
        loc = self.grid + flow
        for i, s in enumerate(self.size):
            loc[:, i] = 2 * (loc[:, i] / (s - 1) - 0.5)
        loc = loc.permute(0, 2, 3, 4, 1)[..., [2, 1, 0]]
        return F.grid_sample(src, loc, align_corners=True, mode="bilinear")


class RegNet(nn.Module):
    def __init__(self, w=8):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv3d(2, w, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv3d(w, 2 * w, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
        )
        self.dec = nn.Sequential(
            nn.Upsample(scale_factor=2, mode="trilinear", align_corners=False),
            nn.Conv3d(2 * w, w, 3, padding=1), nn.LeakyReLU(0.2),
        )
        self.flow = nn.Conv3d(w, 3, 3, padding=1)
        nn.init.normal_(self.flow.weight, 0, 1e-5)
        nn.init.zeros_(self.flow.bias)
        self.transformer = SpatialTransformer(SHAPE)

    def forward(self, moving, fixed):
        h = self.dec(self.enc(torch.cat([moving, fixed], 1)))
        flow = self.flow(h)
        return self.transformer(moving, flow), flow


def grad_smoothness(flow):
    dz = flow[:, :, 1:] - flow[:, :, :-1]
    dy = flow[:, :, :, 1:] - flow[:, :, :, :-1]
    dx = flow[..., 1:] - flow[..., :-1]
    return (dz.pow(2).mean() + dy.pow(2).mean() + dx.pow(2).mean()) / 3


def main():
    dtype = torch.bfloat16
    model = RegNet().to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(20):
        pairs = [synth_pair() for _ in range(2)]
        fixed = torch.stack([to_unit(f) for f, _ in pairs])[:, None].to(dtype)
        moving = torch.stack([to_unit(m) for _, m in pairs])[:, None].to(dtype)
        warped, flow = model(moving, fixed)
        sim = F.mse_loss(warped.float(), fixed.float())
        loss = sim + 0.01 * grad_smoothness(flow.float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 4 == 0:
            print(f"step {step:02d} mse {sim.item():.5f} loss {loss.item():.5f}")
    with tempfile.TemporaryDirectory() as d:
        torch.save({k: v.float() for k, v in model.state_dict().items()}, f"{d}/regnet.pt")
        print("saved", d)


if __name__ == "__main__":
    main()
