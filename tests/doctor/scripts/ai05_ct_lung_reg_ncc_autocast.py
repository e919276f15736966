import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(5)
rng = np.random.default_rng(5)
SHAPE = (20, 20, 20)


def lung_phantom(breath=0.0):
    zz, yy, xx = np.indices(SHAPE).astype(np.float32)
    hu = np.full(SHAPE, 40.0)
    for cx in (6.0, 14.0):
        lung = ((zz - 10 - breath) / (7 + breath)) ** 2 + ((yy - 10) / 6) ** 2 + ((xx - cx) / 3.5) ** 2 < 1
        hu[lung] = -850
    vessels = rng.random(SHAPE) < 0.04
    hu[vessels] = 150
    hu += rng.normal(0, 25, SHAPE)
    return hu.astype(np.int16)


def zscore(hu):
    v = torch.from_numpy(hu).float()
    return (v - v.mean()) / v.std()


class NCC:
    def __init__(self, win=9):
        self.win = win
        self.filt = torch.ones(1, 1, win, win, win)

    def __call__(self, I, J):
        pad = self.win // 2
        n = self.win ** 3
        I_sum = F.conv3d(I, self.filt, padding=pad)
        J_sum = F.conv3d(J, self.filt, padding=pad)
        I2_sum = F.conv3d(I * I, self.filt, padding=pad)
        J2_sum = F.conv3d(J * J, self.filt, padding=pad)
        IJ_sum = F.conv3d(I * J, self.filt, padding=pad)
        u_I, u_J = I_sum / n, J_sum / n
        cross = IJ_sum - u_J * I_sum - u_I * J_sum + u_I * u_J * n
        I_var = I2_sum - 2 * u_I * I_sum + u_I * u_I * n
        J_var = J2_sum - 2 * u_J * J_sum + u_J * u_J * n
        cc = cross * cross / (I_var * J_var + 1e-5)
        return -cc.mean()


class FlowNet(nn.Module):
    def __init__(self, w=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv3d(2, w, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv3d(w, w, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv3d(w, 3, 3, padding=1),
        )
        grid = torch.stack(torch.meshgrid(*[torch.linspace(-1, 1, s) for s in SHAPE], indexing="ij"), -1)
        self.register_buffer("grid", grid[..., [2, 1, 0]][None])

    def forward(self, moving, fixed):
        flow = 0.1 * torch.tanh(self.net(torch.cat([moving, fixed], 1)))
        warped = F.grid_sample(moving, self.grid + flow.permute(0, 2, 3, 4, 1), align_corners=True)
        return warped, flow


def smoothness(flow):
    d = [flow.diff(dim=k) for k in (2, 3, 4)]
    return sum(x.pow(2).mean() for x in d) / 3


def main():
    model = FlowNet()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    ncc = NCC(win=9)
    for step in range(10):
        fixed = zscore(lung_phantom(0.0))[None, None]
        moving = zscore(lung_phantom(float(rng.uniform(0.5, 1.5))))[None, None]
        with torch.autocast("cpu", dtype=torch.float16):
            warped, flow = model(moving, fixed)
            sim = ncc(fixed, warped)
        loss = sim + 1.0 * smoothness(flow.float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} ncc {sim.item():.4f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
