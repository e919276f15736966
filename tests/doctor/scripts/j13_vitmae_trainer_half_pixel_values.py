"""Masked-autoencoder (ViT-MAE) pre-training on 32x32 synthetic images with the
Hugging Face Trainer. The model is converted to fp16 with .half() to save memory;
images come from a datasets.Dataset of uint8 arrays with an on-the-fly transform.
"""
import tempfile

import numpy as np
import torch
from datasets import Dataset
from transformers import Trainer, TrainingArguments, ViTMAEConfig, ViTMAEForPreTraining

torch.manual_seed(13)
rng = np.random.default_rng(13)

MEAN = np.array([0.5, 0.5, 0.5], dtype=np.float32)
STD = np.array([0.5, 0.5, 0.5], dtype=np.float32)


def make_images(n):
    yy, xx = np.mgrid[0:32, 0:32]
    imgs = []
    for _ in range(n):
        img = np.zeros((32, 32, 3), dtype=np.uint8)
        for _ in range(4):
            cy, cx, r = rng.uniform(0, 32), rng.uniform(0, 32), rng.uniform(3, 10)
            img[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = rng.integers(0, 256, size=3)
        imgs.append(img)
    return imgs


def preprocess(batch):
    pixel_values = []
    for img in batch["image"]:
        arr = np.asarray(img, dtype=np.uint8).astype(np.float32) / 255.0
        arr = (arr - MEAN) / STD
        pixel_values.append(torch.from_numpy(arr).permute(2, 0, 1))
    batch["pixel_values"] = pixel_values
    return batch


def collate_fn(examples):
    return {"pixel_values": torch.stack([ex["pixel_values"] for ex in examples])}


config = ViTMAEConfig(
    image_size=32, patch_size=8, num_channels=3,
    hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
    decoder_hidden_size=32, decoder_num_hidden_layers=1, decoder_num_attention_heads=4,
    decoder_intermediate_size=64, mask_ratio=0.75, norm_pix_loss=True,
)
model = ViTMAEForPreTraining(config).half()

ds = Dataset.from_dict({"image": make_images(128)})
ds.set_transform(preprocess)
splits = ds.train_test_split(test_size=0.125, seed=0)

args = TrainingArguments(
    output_dir=tempfile.mkdtemp(),
    per_device_train_batch_size=16,
    per_device_eval_batch_size=16,
    learning_rate=1.5e-4,
    weight_decay=0.05,
    num_train_epochs=2,
    logging_steps=2,
    eval_strategy="epoch",
    save_strategy="no",
    remove_unused_columns=False,
    report_to=[],
    use_cpu=True,
)
trainer = Trainer(model=model, args=args, train_dataset=splits["train"], eval_dataset=splits["test"],
                  data_collator=collate_fn)
trainer.train()
print(trainer.evaluate())
