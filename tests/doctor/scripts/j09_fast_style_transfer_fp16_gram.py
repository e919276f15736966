"""Fast neural style transfer (Johnson et al., 2016): a small image transformation
network trained against a frozen VGG-style loss network with content + style
(Gram matrix) losses, using fp16 autocast and a GradScaler.

The loss network follows the caffe convention: BGR input in 0..255 minus the mean
pixel. Its weights here are random (no download), which is enough for a smoke run.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(9)
rng = np.random.default_rng(9)
DEVICE, AMP_DTYPE = "cpu", torch.float16
CAFFE_MEAN_BGR = torch.tensor([103.939, 116.779, 123.68]).view(1, 3, 1, 1)
CONTENT_W, STYLE_W = 1.0, 1e5


class LossNet(nn.Module):
    """VGG16 up to relu3_3, returning relu1_2, relu2_2, relu3_3."""

    def __init__(self):
        super().__init__()
        self.slice1 = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.slice2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                                    nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.slice3 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
                                    nn.Conv2d(64, 64, 3, padding=1), nn.ReLU())
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)

    def forward(self, x):
        h1 = self.slice1(x)
        h2 = self.slice2(h1)
        h3 = self.slice3(h2)
        return [h1, h2, h3]


class TransformNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 9, padding=4), nn.InstanceNorm2d(16, affine=True), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.InstanceNorm2d(32, affine=True), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1), nn.InstanceNorm2d(32, affine=True), nn.ReLU(),
            nn.Upsample(scale_factor=2), nn.Conv2d(32, 16, 3, padding=1), nn.InstanceNorm2d(16, affine=True), nn.ReLU(),
            nn.Conv2d(16, 3, 9, padding=4),
        )

    def forward(self, x):
        return torch.sigmoid(self.net(x)) * 255.0  # RGB in 0..255


def gram_matrix(y):
    b, ch, h, w = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def to_caffe(rgb_255):
    return rgb_255.flip(1) - CAFFE_MEAN_BGR  # RGB -> BGR, subtract mean pixel


def make_photos(n, size=32):
    yy, xx = np.mgrid[0:size, 0:size] / size
    out = np.empty((n, size, size, 3), dtype=np.uint8)
    for i in range(n):
        a, b_ = rng.uniform(0.2, 1.0, size=2)
        for c in range(3):
            out[i, :, :, c] = np.clip(255 * (a * xx + b_ * yy * (c + 1) / 3) % 255, 0, 255)
    return out


loss_net = LossNet().to(DEVICE).eval()
for p in loss_net.parameters():
    p.requires_grad_(False)
transformer = TransformNet().to(DEVICE)
optimizer = torch.optim.Adam(transformer.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler(DEVICE)

style_u8 = make_photos(1)
style = torch.from_numpy(style_u8).permute(0, 3, 1, 2).float()
with torch.no_grad(), torch.autocast(DEVICE, dtype=AMP_DTYPE):
    gram_style = [gram_matrix(f) for f in loss_net(to_caffe(style))]

photos = make_photos(64)
for it in range(12):
    idx = rng.integers(0, len(photos), 4)
    x = torch.from_numpy(photos[idx]).permute(0, 3, 1, 2).float()
    optimizer.zero_grad()
    with torch.autocast(DEVICE, dtype=AMP_DTYPE):
        y = transformer(x / 255.0)
        features_y = loss_net(to_caffe(y))
        features_x = loss_net(to_caffe(x))
        content_loss = CONTENT_W * F.mse_loss(features_y[1], features_x[1])
        style_loss = 0.0
        for ft_y, gm_s in zip(features_y, gram_style):
            gm_y = gram_matrix(ft_y)
            style_loss = style_loss + F.mse_loss(gm_y, gm_s.expand_as(gm_y))
        style_loss = STYLE_W * style_loss
        total_loss = content_loss + style_loss
    scaler.scale(total_loss).backward()
    scaler.step(optimizer)
    scaler.update()
    if it % 4 == 0:
        print(f"it {it} content {content_loss.item():.1f} style {style_loss.item():.1f} scale {scaler.get_scale():.1f}")

with torch.no_grad():
    out = transformer(torch.from_numpy(photos[:2]).permute(0, 3, 1, 2).float() / 255.0)
print("stylised batch", tuple(out.shape), "mean", out.mean().item())
