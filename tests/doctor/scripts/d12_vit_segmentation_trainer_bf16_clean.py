"""Semantic (binary) segmentation with a tiny ViT encoder from transformers (random init) and a
linear mask head on the patch tokens. Mask logits are upsampled with F.interpolate; the loss is
BCE + per-image soft Dice computed in fp32. Trained with the HF Trainer in bf16 on CPU."""
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import Trainer, TrainingArguments, ViTConfig, ViTModel

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, PATCH = 64, 8


def make_split(n):
    yy, xx = np.mgrid[:IMG, :IMG]
    images, masks = [], []
    for _ in range(n):
        img = rng.integers(0, 60, (IMG, IMG, 3)).astype(np.uint8)
        m = np.zeros((IMG, IMG), dtype=np.uint8)
        for _ in range(int(rng.integers(1, 3))):
            cy, cx, r = rng.uniform(12, 52), rng.uniform(12, 52), rng.uniform(6, 14)
            m[(yy - cy) ** 2 + (xx - cx) ** 2 < r ** 2] = 1
        if rng.random() < 0.5:  # flip augmentation baked into the synthetic set
            img, m = img[:, ::-1], m[:, ::-1]
        img = img.copy()
        img[m == 1] = (200, 120, 40)
        images.append(img)
        masks.append(m.copy())
    return Dataset.from_dict({"image": images, "mask": masks})


def collate(features):
    pixel_values = torch.stack([torch.tensor(np.asarray(f["image"], dtype=np.uint8)).permute(2, 0, 1) for f in features])
    pixel_values = pixel_values.float() / 127.5 - 1.0
    labels = torch.stack([torch.tensor(np.asarray(f["mask"], dtype=np.uint8)) for f in features]).float()
    return {"pixel_values": pixel_values, "labels": labels}


class ViTSeg(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = ViTConfig(image_size=IMG, patch_size=PATCH, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128)
        self.vit = ViTModel(cfg, add_pooling_layer=False)
        self.mask_head = nn.Linear(64, 1)

    def forward(self, pixel_values, labels=None):
        tok = self.vit(pixel_values=pixel_values).last_hidden_state[:, 1:]
        g = IMG // PATCH
        low = self.mask_head(tok).transpose(1, 2).reshape(-1, 1, g, g)
        logits = F.interpolate(low.float(), size=(IMG, IMG), mode="bilinear", align_corners=False)[:, 0]
        out = {"logits": logits}
        if labels is not None:
            bce = F.binary_cross_entropy_with_logits(logits, labels)
            probs = logits.sigmoid()
            inter = (probs * labels).flatten(1).sum(-1)
            denom = probs.flatten(1).sum(-1) + labels.flatten(1).sum(-1)
            dice = 1 - (2 * inter + 1.0) / (denom + 1.0)
            out["loss"] = bce + dice.mean()
        return out


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    pred = logits > 0
    gt = labels > 0.5
    inter = np.logical_and(pred, gt).sum()
    union = np.logical_or(pred, gt).sum()
    return {"miou_fg": float(inter / max(union, 1))}


def main():
    train, val = make_split(64), make_split(16)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=8, per_device_eval_batch_size=8,
                                 num_train_epochs=2, learning_rate=1e-3, weight_decay=0.01, warmup_steps=2,
                                 logging_steps=4, eval_strategy="epoch", save_strategy="no", bf16=True,
                                 use_cpu=True, report_to=[], remove_unused_columns=False,
                                 dataloader_num_workers=0, seed=0, disable_tqdm=True)
        trainer = Trainer(model=ViTSeg(), args=args, train_dataset=train, eval_dataset=val,
                          data_collator=collate, compute_metrics=compute_metrics)
        trainer.train()
        print(trainer.evaluate())


if __name__ == "__main__":
    main()
