import copy
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

H, W = 32, 48
FEAT_STRIDE = 4


def coords_grid(h, w):
    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    return torch.stack([xs, ys], dim=0).float()  # (2, h, w), x first


def make_pair(bs):
    img1 = F.avg_pool2d(torch.rand(bs, 3, H + 8, W + 8), 5, 1, 2)
    shifts = torch.randint(-3, 4, (bs, 2))
    img2 = torch.stack([torch.roll(im, (int(s[1]), int(s[0])), dims=(1, 2)) for im, s in zip(img1, shifts)])
    flow = shifts.float()[:, :, None, None].expand(bs, 2, H, W)
    return img1[..., 4:-4, 4:-4], img2[..., 4:-4, 4:-4], flow


class Encoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv2d(16, dim, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(dim, dim, 3, padding=1),
        )

    def forward(self, x):
        return self.net(x)


class UpdateBlock(nn.Module):
    def __init__(self, corr_dim, hidden=32):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(corr_dim + 2, hidden, 3, padding=1), nn.ReLU())
        self.gru_z = nn.Conv2d(hidden * 2, hidden, 3, padding=1)
        self.gru_q = nn.Conv2d(hidden * 2, hidden, 3, padding=1)
        self.flow_head = nn.Conv2d(hidden, 2, 3, padding=1)

    def forward(self, h, corr, flow):
        x = self.enc(torch.cat([corr, flow], dim=1))
        hx = torch.cat([h, x], dim=1)
        z = torch.sigmoid(self.gru_z(hx))
        q = torch.tanh(self.gru_q(hx))
        h = (1 - z) * h + z * q
        return h, self.flow_head(h)


class RAFTLite(nn.Module):
    def __init__(self, radius=3, iters=4):
        super().__init__()
        self.radius, self.iters = radius, iters
        self.fnet = Encoder()
        self.update = UpdateBlock((2 * radius + 1) ** 2)
        h, w = H // FEAT_STRIDE, W // FEAT_STRIDE
        self.base_grid = coords_grid(h, w)
        r = torch.arange(-radius, radius + 1).float()
        dy, dx = torch.meshgrid(r, r, indexing="ij")
        self.delta = torch.stack([dx, dy], dim=-1).view(1, -1, 1, 2)

    def lookup(self, corr, coords):
        b, _, h, w = coords.shape
        centroid = coords.permute(0, 2, 3, 1).reshape(b * h * w, 1, 1, 2)
        pts = centroid + self.delta.to(coords)
        grid = torch.cat([pts[..., :1] * (2 / (w - 1)), pts[..., 1:] * (2 / (h - 1))], dim=-1) - 1
        out = F.grid_sample(corr, grid, align_corners=True)
        return out.view(b, h, w, -1).permute(0, 3, 1, 2)

    def forward(self, img1, img2):
        f1, f2 = self.fnet(img1), self.fnet(img2)
        b, c, h, w = f1.shape
        corr = torch.einsum("bchw,bcuv->bhwuv", f1, f2) / c ** 0.5
        corr = corr.reshape(b * h * w, 1, h, w)
        coords0 = self.base_grid[None].expand(b, -1, -1, -1)
        flow = torch.zeros_like(f1[:, :2])
        hidden = torch.tanh(f1)
        for _ in range(self.iters):
            feat = self.lookup(corr, coords0 + flow)
            hidden, delta = self.update(hidden, feat, flow)
            flow = flow + delta
        return F.interpolate(flow, scale_factor=FEAT_STRIDE, mode="bilinear", align_corners=True) * FEAT_STRIDE


def main():
    model = RAFTLite()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(25):
        img1, img2, gt = make_pair(8)
        pred = model(img1, img2)
        loss = (pred - gt).abs().mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 5 == 0:
            print(f"step {step:2d} epe-l1 {loss.item():.4f}")

    deploy = copy.deepcopy(model).half().eval()
    img1, img2, gt = make_pair(2)
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        traced = torch.jit.trace(deploy, (img1.half(), img2.half()))
        path = os.path.join(tmp, "raft_lite_fp16.pt")
        traced.save(path)
        out = torch.jit.load(path)(img1.half(), img2.half())
        print("exported", path, "val l1", (out.float() - gt).abs().mean().item())


if __name__ == "__main__":
    main()
