"""Tiny U-Net binary segmentation of synthetic blobs, fp16 weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Up(nn.Module):
    def __init__(self, cin, cskip, cout):
        super().__init__()
        self.conv = conv_block(cin + cskip, cout)

    def forward(self, x, skip):
        # upsample in full precision: bilinear on half tensors is slow / unsupported on some CPUs
        x = F.interpolate(x.float(), size=skip.shape[-2:], mode="bilinear", align_corners=False)
        x = torch.cat([x, skip], dim=1)
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.enc1 = conv_block(1, c)
        self.enc2 = conv_block(c, 2 * c)
        self.bott = conv_block(2 * c, 4 * c)
        self.up2 = Up(4 * c, 2 * c, 2 * c)
        self.up1 = Up(2 * c, c, c)
        self.out = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        b = self.bott(F.max_pool2d(e2, 2))
        d2 = self.up2(b, e2)
        d1 = self.up1(d2, e1)
        return self.out(d1)


def make_batch(n=4, s=32):
    yy, xx = torch.meshgrid(torch.arange(s), torch.arange(s), indexing="ij")
    cx, cy, r = torch.randint(8, 24, (3, n, 1, 1)).float()
    mask = (((xx - cx) ** 2 + (yy - cy) ** 2) < (r / 2) ** 2).float().unsqueeze(1)
    img = mask + 0.3 * torch.randn_like(mask)
    return img, mask


model = UNet().half()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for step in range(4):
    img, mask = make_batch()
    logits = model(img.half())
    loss = F.binary_cross_entropy_with_logits(logits.float(), mask)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
