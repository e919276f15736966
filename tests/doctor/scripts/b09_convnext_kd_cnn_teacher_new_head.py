"""Knowledge distillation into a ConvNeXt student (transformers config). The student backbone
skeleton is built with accelerate's init_empty_weights (no wasted random init), given a new
10-class head, and materialised from a (here: freshly saved) checkpoint with assign=True. A small CNN teacher provides
soft targets (KL at temperature T) next to the hard-label loss."""
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import init_empty_weights
from safetensors.torch import load_file, save_file
from transformers import ConvNextConfig, ConvNextForImageClassification

torch.manual_seed(0)
NUM_CLASSES, T, ALPHA = 10, 4.0, 0.7

teacher = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.Conv2d(64, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, NUM_CLASSES),
).eval()

pretrain_cfg = ConvNextConfig(num_channels=3, patch_size=2, hidden_sizes=[16, 32, 64], depths=[1, 1, 1],
                              num_stages=3, num_labels=100)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "convnext_pretrained.safetensors")
    save_file(ConvNextForImageClassification(pretrain_cfg).state_dict(), path)  # stand-in for a hub checkpoint

    # build the skeleton without allocating memory and swap in the new task head
    with init_empty_weights():
        student = ConvNextForImageClassification(pretrain_cfg)
        student.classifier = nn.Linear(pretrain_cfg.hidden_sizes[-1], NUM_CLASSES)
        student.num_labels = NUM_CLASSES
    # materialise the backbone straight from the checkpoint tensors (old 100-class head dropped)
    sd = {k: v for k, v in load_file(path).items() if not k.startswith("classifier")}
    missing, unexpected = student.load_state_dict(sd, strict=False, assign=True)
    print("newly initialised:", missing)

opt = torch.optim.AdamW(student.parameters(), lr=5e-4, weight_decay=0.05)
images = torch.randn(128, 3, 32, 32)
labels = torch.randint(0, NUM_CLASSES, (128,))

student.train()
for step in range(8):
    idx = torch.randint(0, 128, (32,))
    x, y = images[idx], labels[idx]
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(pixel_values=x).logits
    kd = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
    ce = F.cross_entropy(s_logits, y)
    loss = ALPHA * kd + (1 - ALPHA) * ce
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} kd {kd.item():.4f} ce {ce.item():.4f}")
