"""ControlNet-style training: a frozen, "pretrained" U-Net kept in fp16 and a trainable
control branch (a copy of the U-Net encoder + zero convolutions + a hint encoder) in fp32.
The control branch's residuals are added to the U-Net skip connections and mid block.
"""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def temb_sin(t, dim=64):
    half = dim // 2
    f = torch.exp(-math.log(10000) * torch.arange(half) / half)
    a = t.float()[:, None] * f[None]
    return torch.cat([a.cos(), a.sin()], -1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim=64):
        super().__init__()
        self.norm1 = nn.GroupNorm(8, cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.emb = nn.Linear(tdim, cout)
        self.norm2 = nn.GroupNorm(8, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, e):
        h = self.conv1(F.silu(self.norm1(x))) + self.emb(e)[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return self.skip(x) + h


class Encoder(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.time_embed = nn.Sequential(nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 64))
        self.conv_in = nn.Conv2d(3, ch, 3, padding=1)
        self.down1 = ResBlock(ch, ch)
        self.downsample = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.down2 = ResBlock(ch, ch * 2)
        self.mid = ResBlock(ch * 2, ch * 2)

    def forward(self, x, t, hint=None):
        e = self.time_embed(temb_sin(t).to(x.dtype))
        h = self.conv_in(x)
        if hint is not None:
            h = h + hint
        h1 = self.down1(h, e)
        h2 = self.down2(self.downsample(h1), e)
        return e, [h1, h2], self.mid(h2, e)


class UNet(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.encoder = Encoder(ch)
        self.up2 = ResBlock(ch * 4, ch * 2)
        self.upsample = nn.Upsample(scale_factor=2)
        self.up1 = ResBlock(ch * 3, ch)
        self.out = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x, t, down_residuals=None, mid_residual=None):
        e, skips, h = self.encoder(x, t)
        if down_residuals is not None:
            skips = [s + r for s, r in zip(skips, down_residuals)]
            h = h + mid_residual
        h = self.up2(torch.cat([h, skips[1]], 1), e)
        h = self.up1(torch.cat([self.upsample(h), skips[0]], 1), e)
        return self.out(h)


def zero_conv(c):
    conv = nn.Conv2d(c, c, 1)
    nn.init.zeros_(conv.weight)
    nn.init.zeros_(conv.bias)
    return conv


class ControlNet(nn.Module):
    def __init__(self, unet, ch=32):
        super().__init__()
        self.encoder = copy.deepcopy(unet.encoder)
        self.hint_block = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.SiLU(), nn.Conv2d(16, ch, 3, padding=1))
        self.zero_convs = nn.ModuleList([zero_conv(ch), zero_conv(ch * 2)])
        self.mid_zero_conv = zero_conv(ch * 2)

    def forward(self, x, t, cond):
        _, skips, mid = self.encoder(x, t, hint=self.hint_block(cond))
        return [zc(s) for zc, s in zip(self.zero_convs, skips)], self.mid_zero_conv(mid)


T = 1000
ac = torch.cumprod(1 - torch.linspace(1e-4, 0.02, T), 0)

unet = UNet()
controlnet = ControlNet(unet)          # initialised from the U-Net encoder weights
unet = unet.half().eval().requires_grad_(False)
opt = torch.optim.AdamW(controlnet.parameters(), lr=1e-4)


def make_pair(n):
    # target image: coloured square; control: its edge map
    img = -torch.ones(n, 3, 16, 16)
    edge = torch.zeros(n, 1, 16, 16)
    for i in range(n):
        r, c = torch.randint(1, 9, (2,)).tolist()
        img[i, :, r:r + 6, c:c + 6] = torch.rand(3, 1, 1)
        edge[i, 0, r:r + 6, c:c + 6] = 1.0
        edge[i, 0, r + 1:r + 5, c + 1:c + 5] = 0.0
    return img, edge


for step in range(20):
    x0, hint = make_pair(16)
    t = torch.randint(0, T, (16,))
    eps = torch.randn_like(x0)
    a = ac[t].view(-1, 1, 1, 1)
    x_t = a.sqrt() * x0 + (1 - a).sqrt() * eps
    down_res, mid_res = controlnet(x_t, t, hint)
    pred = unet(x_t.half(), t, down_residuals=down_res, mid_residual=mid_res)
    loss = F.mse_loss(pred.float(), eps)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
