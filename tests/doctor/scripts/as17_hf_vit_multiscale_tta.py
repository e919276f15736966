import numpy as np
import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import ViTConfig, ViTForImageClassification

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 5


def make_split(n, size=32):
    labels = rng.integers(0, NUM_CLASSES, n)
    imgs = rng.integers(0, 100, (n, size, size, 3)).astype(np.uint8)
    for i, y in enumerate(labels):
        imgs[i, :, 2 * y:2 * y + 6, :] = 250
    x = torch.from_numpy(imgs).permute(0, 3, 1, 2).float() / 255.0
    x = (x - 0.5) / 0.5
    return TensorDataset(x, torch.from_numpy(labels).long())


@torch.no_grad()
def tta_predict(model, pixel_values, scales=(24, 32, 48)):
    probs = 0
    for s in scales:
        x = F.interpolate(pixel_values, size=(s, s), mode="bicubic", antialias=True, align_corners=False)
        for flip in (False, True):
            xi = torch.flip(x, dims=[3]) if flip else x
            logits = model(pixel_values=xi, interpolate_pos_encoding=True).logits
            probs = probs + logits.float().softmax(-1)
    return probs / (2 * len(scales))


def main():
    config = ViTConfig(
        image_size=32, patch_size=4, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=128, num_labels=NUM_CLASSES, hidden_dropout_prob=0.1)
    model = ViTForImageClassification(config)
    accelerator = Accelerator(cpu=True)
    train_loader = DataLoader(make_split(160), batch_size=32, shuffle=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    model, opt, train_loader = accelerator.prepare(model, opt, train_loader)

    model.train()
    for epoch in range(3):
        for x, y in train_loader:
            out = model(pixel_values=x, labels=y)
            accelerator.backward(out.loss)
            opt.step()
            opt.zero_grad()
        accelerator.print(f"epoch {epoch} loss {out.loss.item():.4f}")

    model = accelerator.unwrap_model(model).half().eval()
    val = make_split(64)
    x_val, y_val = val.tensors
    probs = tta_predict(model, x_val.half())
    nll = F.nll_loss(probs.clamp_min(1e-8).log(), y_val)
    top1 = (probs.argmax(-1) == y_val).float().mean()
    print(f"tta nll {nll.item():.4f} top1 {top1.item():.3f}")


if __name__ == "__main__":
    main()
