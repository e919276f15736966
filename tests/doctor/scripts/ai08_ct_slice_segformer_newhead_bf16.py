import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import SegformerConfig, SegformerForSemanticSegmentation

torch.manual_seed(8)
rng = np.random.default_rng(8)
ORGANS = ["background", "liver", "kidney_l", "kidney_r", "spleen"]


def ct_slices(n=8, size=64):
    yy, xx = np.mgrid[:size, :size]
    hu = np.full((n, size, size), -1000, dtype=np.int16)
    lab = np.zeros((n, size, size), dtype=np.int64)
    for i in range(n):
        body = ((yy - 32) / 26) ** 2 + ((xx - 32) / 30) ** 2 < 1
        hu[i][body] = rng.normal(20, 30, body.sum()).astype(np.int16)
        organs = [((20, 22), 9, 70), ((40, 18), 5, 150), ((40, 46), 5, 150), ((22, 44), 6, 45)]
        for k, ((cy, cx), r, mu) in enumerate(organs, start=1):
            cy, cx = cy + rng.integers(-2, 3), cx + rng.integers(-2, 3)
            m = (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
            hu[i][m] = rng.normal(mu, 12, m.sum()).astype(np.int16)
            lab[i][m] = k
    return hu, lab


def abdomen_window(hu, level=50, width=400):
    x = torch.from_numpy(hu).float()
    return ((x - level) / (width / 2)).clamp(-1, 1)[:, None]


def build_model():
    cfg = SegformerConfig(
        num_channels=1, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[4, 2], hidden_sizes=[16, 32],
        patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2],
        decoder_hidden_size=32, num_labels=2,
    )
    return SegformerForSemanticSegmentation(cfg)


def main():
    model = build_model()
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d)
        model = SegformerForSemanticSegmentation.from_pretrained(d)
    model = model.to(torch.bfloat16)

    hidden = model.config.decoder_hidden_size
    model.decode_head.classifier = nn.Conv2d(hidden, len(ORGANS), kernel_size=1)
    model.config.num_labels = len(ORGANS)

    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    class_w = torch.tensor([0.2, 1.0, 1.5, 1.5, 1.2])
    model.train()
    for step in range(12):
        hu, lab = ct_slices()
        x = abdomen_window(hu).to(torch.bfloat16)
        y = torch.from_numpy(lab)
        logits = model(pixel_values=x).logits
        logits = F.interpolate(logits.float(), size=y.shape[-2:], mode="bilinear", align_corners=False)
        loss = F.cross_entropy(logits, y, weight=class_w)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 3 == 0:
            print(f"step {step:02d} weighted ce {loss.item():.4f}")


if __name__ == "__main__":
    main()
