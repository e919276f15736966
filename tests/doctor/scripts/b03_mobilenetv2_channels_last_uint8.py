"""MobileNetV2 (transformers, random init) trained channels_last with bf16 autocast.

Decoded images arrive as uint8 NHWC numpy arrays; normalisation is done on the tensor
in-place (like torchvision's normalize(..., inplace=True)) to save a copy per batch."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import MobileNetV2Config, MobileNetV2ForImageClassification

torch.manual_seed(0)
rng = np.random.default_rng(0)

NUM_CLASSES = 5
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255

images = rng.integers(0, 256, size=(96, 48, 48, 3), dtype=np.uint8)
labels = rng.integers(0, NUM_CLASSES, size=96)


def normalize_(x):
    # x: N,C,H,W ; mean/std already scaled to [0,255]
    return x.sub_(MEAN).div_(STD)


def to_batch(imgs_u8):
    x = torch.from_numpy(imgs_u8).permute(0, 3, 1, 2)          # NHWC -> NCHW view
    x = x.contiguous(memory_format=torch.channels_last)
    if rng.random() < 0.5:
        x = x.flip(-1)
    return normalize_(x)


config = MobileNetV2Config(num_channels=3, image_size=48, depth_multiplier=0.35, num_labels=NUM_CLASSES)
model = MobileNetV2ForImageClassification(config).to(memory_format=torch.channels_last)
opt = torch.optim.RMSprop(model.parameters(), lr=1e-3, alpha=0.9, momentum=0.9, eps=0.0316, weight_decay=1e-5)

model.train()
for epoch in range(2):
    perm = rng.permutation(len(images))
    for it, i in enumerate(range(0, len(perm), 16)):
        idx = perm[i:i + 16]
        x = to_batch(images[idx])
        y = torch.from_numpy(labels[idx])
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(pixel_values=x).logits
        loss = F.cross_entropy(logits.float(), y, label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch} it {it} loss {loss.item():.4f}")
