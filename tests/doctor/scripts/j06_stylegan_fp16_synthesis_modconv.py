"""Tiny StyleGAN2-like generator + ResNet discriminator on 16x16 images.

Mapping network (8 FC layers, equalized learning rate, lr multiplier 0.01) stays
in float32 for stability; the synthesis network (modulated convolutions with
weight demodulation) is converted to float16 to save memory, as in StyleGAN2-ADA.
Non-saturating logistic loss with lazy R1 regularisation.
"""
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)
rng = np.random.default_rng(6)
Z_DIM = W_DIM = 64


class EqualLinear(nn.Module):
    def __init__(self, in_f, out_f, bias_init=0.0, lr_mul=1.0, activation=False):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_f, in_f) / lr_mul)
        self.bias = nn.Parameter(torch.full([out_f], float(bias_init)))
        self.weight_gain = lr_mul / math.sqrt(in_f)
        self.bias_gain = lr_mul
        self.activation = activation

    def forward(self, x):
        x = F.linear(x, self.weight * self.weight_gain, self.bias * self.bias_gain)
        if self.activation:
            x = F.leaky_relu(x, 0.2) * math.sqrt(2)
        return x


class MappingNetwork(nn.Module):
    def __init__(self, n_layers=8):
        super().__init__()
        self.fcs = nn.ModuleList(
            [EqualLinear(Z_DIM if i == 0 else W_DIM, W_DIM, lr_mul=0.01, activation=True) for i in range(n_layers)]
        )

    def forward(self, z):
        x = z * (z.square().mean(dim=1, keepdim=True) + 1e-8).rsqrt()  # normalize_2nd_moment
        for fc in self.fcs:
            x = fc(x)
        return x


class ModulatedConv2d(nn.Module):
    def __init__(self, in_ch, out_ch, k=3, demodulate=True, upsample=False):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_ch, in_ch, k, k))
        self.affine = EqualLinear(W_DIM, in_ch, bias_init=1.0)
        self.demodulate, self.upsample, self.padding = demodulate, upsample, k // 2
        self.in_ch, self.out_ch = in_ch, out_ch

    def forward(self, x, w):
        b = x.shape[0]
        styles = self.affine(w)  # (B, in_ch)
        weight = self.weight[None] * styles[:, None, :, None, None] / math.sqrt(self.in_ch * 9)
        if self.demodulate:
            d = (weight.square().sum(dim=[2, 3, 4]) + 1e-8).rsqrt()
            weight = weight * d[:, :, None, None, None]
        if self.upsample:
            x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        x = x.reshape(1, b * self.in_ch, *x.shape[2:])
        weight = weight.reshape(b * self.out_ch, self.in_ch, *weight.shape[3:])
        x = F.conv2d(x, weight, padding=self.padding, groups=b)
        return x.reshape(b, self.out_ch, *x.shape[2:])


class SynthesisLayer(nn.Module):
    def __init__(self, in_ch, out_ch, upsample=False):
        super().__init__()
        self.conv = ModulatedConv2d(in_ch, out_ch, upsample=upsample)
        self.noise_strength = nn.Parameter(torch.zeros([]))
        self.bias = nn.Parameter(torch.zeros(out_ch))

    def forward(self, x, w):
        x = self.conv(x, w)
        noise = torch.randn(x.shape[0], 1, x.shape[2], x.shape[3], dtype=x.dtype) * self.noise_strength
        return F.leaky_relu(x + noise + self.bias[None, :, None, None], 0.2) * math.sqrt(2)


class ToRGB(nn.Module):
    def __init__(self, in_ch):
        super().__init__()
        self.conv = ModulatedConv2d(in_ch, 3, k=1, demodulate=False)
        self.bias = nn.Parameter(torch.zeros(3))

    def forward(self, x, w):
        return self.conv(x, w) + self.bias[None, :, None, None]


class SynthesisNetwork(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.const = nn.Parameter(torch.randn(ch, 4, 4))
        self.b4 = SynthesisLayer(ch, ch)
        self.b8 = nn.ModuleList([SynthesisLayer(ch, ch, upsample=True), SynthesisLayer(ch, ch)])
        self.b16 = nn.ModuleList([SynthesisLayer(ch, ch, upsample=True), SynthesisLayer(ch, ch)])
        self.torgb = ToRGB(ch)

    def forward(self, ws):
        x = self.const[None].expand(ws.shape[0], -1, -1, -1)
        x = self.b4(x, ws)
        for layer in list(self.b8) + list(self.b16):
            x = layer(x, ws)
        return self.torgb(x, ws)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.mapping = MappingNetwork()
        self.synthesis = SynthesisNetwork()

    def forward(self, z):
        return self.synthesis(self.mapping(z))


class Discriminator(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, ch, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(ch, ch, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(ch, ch, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Flatten(), nn.Linear(ch * 16, 1),
        )

    def forward(self, x):
        return self.net(x)


def make_faces(n):
    yy, xx = np.mgrid[0:16, 0:16]
    out = np.zeros((n, 16, 16, 3), dtype=np.uint8)
    for i in range(n):
        r = rng.uniform(4, 7)
        skin = rng.integers(100, 256, size=3)
        mask = (yy - 8) ** 2 + (xx - 8) ** 2 < r * r
        out[i][mask] = skin
        out[i, 6, 6] = out[i, 6, 10] = 0
    return out


G, D = Generator(), Discriminator()
G.synthesis.half()  # fp16 synthesis, mapping stays fp32

opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.0, 0.99), eps=1e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.0, 0.99))
data = make_faces(256)
R1_GAMMA, R1_EVERY = 1.0, 4

for it in range(30):
    idx = rng.integers(0, len(data), 16)
    real = torch.from_numpy(data[idx]).permute(0, 3, 1, 2).float() / 127.5 - 1
    z = torch.randn(16, Z_DIM)

    # --- D step
    fake = G(z).float()
    loss_d = F.softplus(D(fake.detach())).mean() + F.softplus(-D(real)).mean()
    if it % R1_EVERY == 0:
        real.requires_grad_(True)
        r_logits = D(real)
        (grad,) = torch.autograd.grad(r_logits.sum(), real, create_graph=True)
        loss_d = loss_d + R1_GAMMA / 2 * grad.square().sum([1, 2, 3]).mean() * R1_EVERY
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()

    # --- G step
    loss_g = F.softplus(-D(G(z).float())).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    if it % 10 == 0:
        print(f"it {it} loss_d {loss_d.item():.3f} loss_g {loss_g.item():.3f}")
print("done")
