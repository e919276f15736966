"""Fine-tune a small ResNet (transformers, random init) with CutMix + label smoothing.

Images come in as uint8 HWC numpy arrays (like a decoded PIL/cv2 dataset); preprocessing
is done in numpy before handing batches to torch.
"""
import math
import numpy as np
import torch
import torch.nn.functional as F
from transformers import ResNetConfig, ResNetForImageClassification

torch.manual_seed(0)
rng = np.random.default_rng(0)

NUM_CLASSES = 10
IMG = 32
MEAN = np.array([0.4914, 0.4822, 0.4465])
STD = np.array([0.2470, 0.2435, 0.2616])


def make_fake_cifar(n):
    labels = rng.integers(0, NUM_CLASSES, size=n)
    imgs = rng.integers(0, 256, size=(n, IMG, IMG, 3), dtype=np.uint8)
    # make the classes a little separable: tint by label
    imgs[..., 0] = np.clip(imgs[..., 0].astype(np.int32) // 2 + labels[:, None, None] * 12, 0, 255)
    return imgs, labels


def preprocess(batch_u8):
    x = batch_u8 / 255.0                      # HWC in [0, 1]
    x = (x - MEAN) / STD                      # per-channel normalisation
    x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))  # NCHW
    return torch.from_numpy(x)


def rand_bbox(size, lam):
    h, w = size[2], size[3]
    cut = math.sqrt(1.0 - lam)
    ch, cw = int(h * cut), int(w * cut)
    cy, cx = rng.integers(h), rng.integers(w)
    y1, y2 = np.clip(cy - ch // 2, 0, h), np.clip(cy + ch // 2, 0, h)
    x1, x2 = np.clip(cx - cw // 2, 0, w), np.clip(cx + cw // 2, 0, w)
    return int(y1), int(y2), int(x1), int(x2)


def cutmix(x, y, alpha=1.0, smoothing=0.1):
    lam = rng.beta(alpha, alpha)
    perm = torch.randperm(x.size(0))
    y1, y2, x1, x2 = rand_bbox(x.shape, lam)
    x = x.clone()
    x[:, :, y1:y2, x1:x2] = x[perm, :, y1:y2, x1:x2]
    lam = 1 - (y2 - y1) * (x2 - x1) / (x.shape[2] * x.shape[3])
    off = smoothing / NUM_CLASSES
    onehot = F.one_hot(y, NUM_CLASSES).float() * (1 - smoothing) + off
    target = lam * onehot + (1 - lam) * onehot[perm]
    return x, target


def soft_ce(logits, target):
    return torch.sum(-target * F.log_softmax(logits, dim=-1), dim=-1).mean()


config = ResNetConfig(num_channels=3, embedding_size=16, hidden_sizes=[16, 32, 64], depths=[1, 1, 1],
                      layer_type="basic", num_labels=NUM_CLASSES)
model = ResNetForImageClassification(config)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True)

train_x, train_y = make_fake_cifar(256)
EPOCHS, BS = 2, 32
steps = EPOCHS * (len(train_x) // BS)
sched = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.05, total_steps=steps)

model.train()
step = 0
for epoch in range(EPOCHS):
    order = rng.permutation(len(train_x))
    for i in range(0, len(order), BS):
        idx = order[i:i + BS]
        x = preprocess(train_x[idx])
        y = torch.from_numpy(train_y[idx])
        x, target = cutmix(x, y)
        logits = model(pixel_values=x).logits
        loss = soft_ce(logits, target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        sched.step()
        step += 1
        if step % 4 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
print("done")
