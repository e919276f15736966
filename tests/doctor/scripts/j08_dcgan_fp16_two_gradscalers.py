"""DCGAN with mixed precision: autocast(fp16) plus one GradScaler per network,
the pattern recommended for multiple models/optimizers in the AMP examples.
The models are also converted with .half() to cut memory further.
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(8)
rng = np.random.default_rng(8)
DEVICE = "cpu"
NZ = 32


def make_images(n):
    yy, xx = np.mgrid[0:16, 0:16]
    out = np.zeros((n, 16, 16, 3), dtype=np.uint8)
    for i in range(n):
        x0, y0 = rng.integers(0, 8, size=2)
        w, h = rng.integers(4, 9, size=2)
        out[i, y0:y0 + h, x0:x0 + w] = rng.integers(60, 256, size=3)
    return out


netG = nn.Sequential(
    nn.ConvTranspose2d(NZ, 64, 4, 1, 0, bias=False), nn.BatchNorm2d(64), nn.ReLU(True),
    nn.ConvTranspose2d(64, 32, 4, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(True),
    nn.ConvTranspose2d(32, 3, 4, 2, 1, bias=False), nn.Tanh(),
).to(DEVICE).half()
netD = nn.Sequential(
    nn.Conv2d(3, 32, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
    nn.Conv2d(32, 64, 4, 2, 1, bias=False), nn.BatchNorm2d(64), nn.LeakyReLU(0.2, True),
    nn.Conv2d(64, 1, 4, 1, 0, bias=False), nn.Flatten(),
).to(DEVICE).half()

criterion = nn.BCEWithLogitsLoss()
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
scalerD = torch.amp.GradScaler(DEVICE)
scalerG = torch.amp.GradScaler(DEVICE)

data = make_images(256)
for it in range(30):
    idx = rng.integers(0, len(data), 32)
    real = (torch.from_numpy(data[idx]).permute(0, 3, 1, 2).float() / 127.5 - 1).to(DEVICE).half()
    noise = torch.randn(32, NZ, 1, 1, device=DEVICE).half()

    # (1) Update D
    optD.zero_grad()
    with torch.autocast(DEVICE, dtype=torch.float16):
        fake = netG(noise)
        out_real = netD(real)
        out_fake = netD(fake.detach())
        errD = criterion(out_real, torch.ones_like(out_real)) + criterion(out_fake, torch.zeros_like(out_fake))
    scalerD.scale(errD).backward()
    scalerD.unscale_(optD)
    torch.nn.utils.clip_grad_norm_(netD.parameters(), 1.0)
    scalerD.step(optD)
    scalerD.update()

    # (2) Update G
    optG.zero_grad()
    with torch.autocast(DEVICE, dtype=torch.float16):
        out = netD(fake)
        errG = criterion(out, torch.ones_like(out))
    scalerG.scale(errG).backward()
    scalerG.step(optG)
    scalerG.update()

    if it % 10 == 0:
        print(f"it {it} errD {errD.item():.3f} errG {errG.item():.3f} scaleD {scalerD.get_scale():.0f}")
print("done")
