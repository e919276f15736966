"""SimpleBaseline-style keypoint estimator (tiny CNN + deconv heatmap head) trained with CPU
autocast in bf16, heatmap MSE + soft-argmax coordinate loss, an EMA copy of the model, then an fp16
safetensors export that is reloaded for half-precision inference and PCK evaluation."""
import copy
import math
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, K, HM = 64, 4, 16
BETA = 25.0


class PoseNet(nn.Module):
    def __init__(self):
        super().__init__()
        def cbr(i, o, s):
            return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU())
        self.backbone = nn.Sequential(cbr(3, 16, 2), cbr(16, 32, 2), cbr(32, 64, 2), cbr(64, 64, 2))
        self.deconv = nn.Sequential(nn.ConvTranspose2d(64, 32, 4, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                                    nn.ConvTranspose2d(32, 32, 4, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU())
        self.final = nn.Conv2d(32, K, 1)

    def forward(self, x):
        return self.final(self.deconv(self.backbone(x)))


class ModelEMA:
    def __init__(self, model, decay=0.99):
        self.module = copy.deepcopy(model).eval()
        self.decay, self.updates = decay, 0
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        self.updates += 1
        d = self.decay * (1 - math.exp(-self.updates / 20))
        msd = model.state_dict()
        for k, v in self.module.state_dict().items():
            if v.dtype.is_floating_point:
                v.mul_(d).add_(msd[k].detach(), alpha=1 - d)
            else:
                v.copy_(msd[k])


def soft_argmax(hm, beta=BETA):
    b, k, h, w = hm.shape
    prob = F.softmax(beta * hm.float().reshape(b, k, -1), dim=-1).reshape(b, k, h, w)
    xs = torch.arange(w, dtype=torch.float32)
    ys = torch.arange(h, dtype=torch.float32)
    return torch.stack([(prob.sum(2) * xs).sum(-1), (prob.sum(3) * ys).sum(-1)], -1)


def make_batch(bs):
    imgs = rng.integers(0, 40, (bs, IMG, IMG, 3)).astype(np.uint8)
    kpts = rng.uniform(6, IMG - 6, (bs, K, 2))
    for b in range(bs):
        for k in range(K):
            x, y = kpts[b, k].astype(int)
            imgs[b, y - 2:y + 3, x - 2:x + 3, k % 3] = 255
    if rng.random() < 0.5:
        imgs = imgs[:, :, ::-1].copy()
        kpts[..., 0] = IMG - 1 - kpts[..., 0]
    s = HM / IMG
    yy, xx = np.mgrid[:HM, :HM]
    hm = np.exp(-((xx - kpts[..., 0, None, None] * s) ** 2 + (yy - kpts[..., 1, None, None] * s) ** 2) / 2.0)
    x = torch.from_numpy(imgs).permute(0, 3, 1, 2).float() / 255.0
    return x, torch.from_numpy(hm).float(), torch.from_numpy(kpts * s).float()


@torch.no_grad()
def pck(model, x, kp, dtype=torch.float32, thr=1.0):
    model.eval()
    coords = soft_argmax(model(x.to(dtype)))
    return ((coords - kp).norm(dim=-1) < thr).float().mean().item()


def main():
    model = PoseNet()
    ema = ModelEMA(model)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(30):
        x, hm_t, kp_t = make_batch(16)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            hm = model(x)
        hm = hm.float()
        loss = F.mse_loss(hm, hm_t) * 100 + 0.05 * F.l1_loss(soft_argmax(hm), kp_t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update(model)
        if step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    xv, _, kpv = make_batch(32)
    print(f"fp32 EMA PCK@1 {pck(ema.module, xv, kpv):.3f}")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pose_ema_fp16.safetensors")
        sd = {k: (v.half() if v.dtype.is_floating_point else v).contiguous() for k, v in ema.module.state_dict().items()}
        save_file(sd, path)
        deployed = PoseNet().half()
        deployed.load_state_dict(load_file(path))
        print(f"fp16 export PCK@1 {pck(deployed, xv, kpv, dtype=torch.float16):.3f}")


if __name__ == "__main__":
    main()
