"""Long-tailed classification (CIFAR-10-LT style, imbalance factor 100) with the class-balanced
focal loss of Cui et al. (effective number of samples), bf16 autocast, and a MobileNetV2 from
a transformers config."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import MobileNetV2Config, MobileNetV2ForImageClassification

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES, IMB_FACTOR, N_MAX = 10, 100, 48


def make_long_tail():
    counts = [int(N_MAX * (1.0 / IMB_FACTOR) ** (c / (NUM_CLASSES - 1))) for c in range(NUM_CLASSES)]
    ys = np.concatenate([np.full(n, c) for c, n in enumerate(counts)])
    xs = (rng.normal(size=(len(ys), 3, 32, 32)) + ys[:, None, None, None] * 0.05).astype(np.float32)
    return torch.from_numpy(xs), torch.from_numpy(ys), counts


def cb_weights(samples_per_cls, beta=0.999):
    samples_per_cls = torch.tensor(samples_per_cls, dtype=torch.float32)
    effective_num = 1.0 - torch.pow(beta, samples_per_cls)
    weights = (1.0 - beta) / effective_num
    return weights / weights.sum() * NUM_CLASSES


def cb_focal_loss(logits, labels, weights, gamma=1.0):
    labels_one_hot = F.one_hot(labels, NUM_CLASSES).float()
    w = weights.unsqueeze(0).repeat(labels_one_hot.shape[0], 1) * labels_one_hot
    w = w.sum(1).unsqueeze(1).repeat(1, NUM_CLASSES)
    bce = F.binary_cross_entropy_with_logits(logits, labels_one_hot, reduction="none")
    modulator = torch.exp(-gamma * labels_one_hot * logits - gamma * torch.log1p(torch.exp(-logits)))
    focal = torch.sum(w * modulator * bce) / torch.sum(labels_one_hot)
    return focal


images, labels, counts = make_long_tail()
print("samples per class:", counts)
weights = cb_weights(counts)

config = MobileNetV2Config(num_channels=3, image_size=32, depth_multiplier=0.35, num_labels=NUM_CLASSES)
model = MobileNetV2ForImageClassification(config)
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=2e-4)

model.train()
for epoch in range(3):
    perm = torch.randperm(len(labels))
    for it in range(0, len(labels), 32):
        idx = perm[it:it + 32]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(pixel_values=images[idx]).logits
        loss = cb_focal_loss(logits.float(), labels[idx], weights)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
