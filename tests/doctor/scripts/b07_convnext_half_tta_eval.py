"""Short ConvNeXt fine-tune (transformers config, random init) followed by a half-precision
evaluation with test-time augmentation (flip + shifted crops); per-sample probabilities are
gathered into a buffer indexed by dataset index for later ensembling."""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from transformers import ConvNextConfig, ConvNextForImageClassification

torch.manual_seed(0)
NUM_CLASSES = 8


class IndexedImages(Dataset):
    def __init__(self, n):
        self.y = torch.randint(0, NUM_CLASSES, (n,))
        self.x = torch.randn(n, 3, 40, 40) + self.y.view(-1, 1, 1, 1) * 0.1

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i], i


def tta_views(x, crop=32):
    h, w = x.shape[-2:]
    c = (h - crop) // 2
    views = [x[..., c:c + crop, c:c + crop]]
    views.append(views[0].flip(-1))
    views.append(x[..., :crop, :crop])
    views.append(x[..., h - crop:, w - crop:])
    return views


config = ConvNextConfig(num_channels=3, patch_size=4, hidden_sizes=[24, 48, 96], depths=[1, 1, 1],
                        num_stages=3, drop_path_rate=0.1, num_labels=NUM_CLASSES)
model = ConvNextForImageClassification(config)

train_ds, test_ds = IndexedImages(128), IndexedImages(64)
train_dl = DataLoader(train_ds, batch_size=32, shuffle=True)
test_dl = DataLoader(test_ds, batch_size=16, shuffle=False)

opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
model.train()
for epoch in range(2):
    for x, y, _ in train_dl:
        i, j = torch.randint(0, 9, (2,)).tolist()
        x = x[..., i:i + 32, j:j + 32]
        loss = model(pixel_values=x, labels=y).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

# ---- evaluation: fp16 weights + TTA ----
model = model.half().eval()
all_probs = torch.zeros(len(test_ds), NUM_CLASSES)
with torch.inference_mode():
    for x, y, idx in test_dl:
        probs = 0
        for v in tta_views(x.half()):
            probs = probs + model(pixel_values=v).logits.softmax(-1)
        probs = probs / 4
        all_probs[idx] = probs
acc = (all_probs.argmax(-1) == test_ds.y).float().mean()
nll = F.nll_loss(all_probs.clamp_min(1e-6).log(), test_ds.y)
print(f"TTA acc {acc:.3f} nll {nll:.3f}")
