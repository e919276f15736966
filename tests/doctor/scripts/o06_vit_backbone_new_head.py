import os
import tempfile

import torch
import torch.nn.functional as F
from accelerate import init_empty_weights
from transformers import ViTConfig, ViTForImageClassification, ViTModel

torch.manual_seed(0)

IMG, N_CLASSES = 32, 4
work_dir = tempfile.mkdtemp()

# ---- stage 1: a self-supervised backbone was exported earlier; recreate it here ----
backbone_cfg = ViTConfig(
    image_size=IMG, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=3,
    num_attention_heads=4, intermediate_size=128,
)
backbone = ViTModel(backbone_cfg, add_pooling_layer=False)
backbone.save_pretrained(os.path.join(work_dir, "vit-backbone"))
del backbone


def make_images(n, seed):
    """Class c lights up quadrant c of the image; gaussian noise elsewhere."""
    g = torch.Generator().manual_seed(seed)
    x = 0.3 * torch.randn(n, 3, IMG, IMG, generator=g)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    h = IMG // 2
    for i, c in enumerate(y.tolist()):
        r, col = divmod(c, 2)
        x[i, :, r * h:(r + 1) * h, col * h:(col + 1) * h] += 1.0
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.std(dim=(0, 2, 3), keepdim=True)
    return (x - mean) / std, y


# ---- stage 2: fine-tune an image classifier on top of the exported backbone ----
cls_cfg = ViTConfig.from_pretrained(os.path.join(work_dir, "vit-backbone"))
cls_cfg.num_labels = N_CLASSES
cls_cfg.id2label = {i: f"quadrant_{i}" for i in range(N_CLASSES)}
cls_cfg.label2id = {v: k for k, v in cls_cfg.id2label.items()}

with init_empty_weights():
    model = ViTForImageClassification(cls_cfg)

pretrained = ViTModel.from_pretrained(os.path.join(work_dir, "vit-backbone"), add_pooling_layer=False)
result = model.vit.load_state_dict(pretrained.state_dict(), assign=True)
print("backbone loaded:", result)
del pretrained

train_x, train_y = make_images(256, 1)
val_x, val_y = make_images(64, 2)

optimizer = torch.optim.AdamW(
    [
        {"params": model.vit.parameters(), "lr": 1e-4},
        {"params": model.classifier.parameters(), "lr": 1e-3},
    ],
    weight_decay=0.05,
)

for epoch in range(3):
    model.train()
    perm = torch.randperm(len(train_x))
    running = 0.0
    for i in range(0, len(perm), 32):
        idx = perm[i:i + 32]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(pixel_values=train_x[idx]).logits
        loss = F.cross_entropy(logits.float(), train_y[idx])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        running += loss.item()
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        preds = model(pixel_values=val_x).logits.argmax(-1)
    print(f"epoch {epoch}: train loss {running / 8:.4f}, val acc {(preds == val_y).float().mean():.3f}")
