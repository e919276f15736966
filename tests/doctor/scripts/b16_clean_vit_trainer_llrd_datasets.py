"""Clean recipe: fine-tune a tiny ViT (transformers config, random init) with the HF Trainer on
a `datasets.Dataset` of uint8 images, on-the-fly transform to normalised float32 tensors,
layer-wise LR decay, cosine schedule with warmup, label smoothing and accuracy metric."""
import tempfile
import numpy as np
import torch
from datasets import Dataset
from transformers import Trainer, TrainingArguments, ViTConfig, ViTForImageClassification, get_cosine_schedule_with_warmup

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 4

labels = rng.integers(0, NUM_CLASSES, size=112)
images = rng.integers(0, 200, size=(112, 32, 32, 3), dtype=np.uint8)
images[..., 1] += (labels * 15).astype(np.uint8)[:, None, None]
ds = Dataset.from_dict({"image": list(images), "label": labels.tolist()}).train_test_split(test_size=32, seed=0)

MEAN = np.array([0.5, 0.5, 0.5], dtype=np.float32)
STD = np.array([0.5, 0.5, 0.5], dtype=np.float32)


def transform(batch):
    imgs = np.asarray(batch["image"], dtype=np.uint8).astype(np.float32) / 255.0
    imgs = (imgs - MEAN) / STD
    return {"pixel_values": torch.from_numpy(imgs.transpose(0, 3, 1, 2).copy()),
            "labels": torch.as_tensor(batch["label"], dtype=torch.long)}


def collate(examples):
    return {"pixel_values": torch.stack([e["pixel_values"] for e in examples]),
            "labels": torch.stack([e["labels"] for e in examples])}


def compute_metrics(eval_pred):
    logits, y = eval_pred
    return {"accuracy": float((np.argmax(logits, -1) == y).mean())}


def llrd_groups(model, lr, wd, decay=0.7):
    n = model.config.num_hidden_layers + 1
    groups = []
    for name, p in model.named_parameters():
        lid = 0 if name.startswith("vit.embeddings") else (
            int(name.split(".")[3]) + 1 if name.startswith("vit.encoder.layer.") else n)
        no_wd = p.ndim == 1 or "position_embeddings" in name or "cls_token" in name
        groups.append({"params": [p], "lr": lr * decay ** (n - lid), "weight_decay": 0.0 if no_wd else wd})
    return groups


config = ViTConfig(image_size=32, patch_size=8, hidden_size=48, num_hidden_layers=3, num_attention_heads=3,
                   intermediate_size=96, num_labels=NUM_CLASSES)
model = ViTForImageClassification(config)

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=16, per_device_eval_batch_size=32,
                             num_train_epochs=3, logging_steps=5, eval_strategy="epoch", save_strategy="no",
                             label_smoothing_factor=0.1, max_grad_norm=1.0, report_to=[], use_cpu=True,
                             remove_unused_columns=False, dataloader_num_workers=0)
    optimizer = torch.optim.AdamW(llrd_groups(model, 1e-3, 0.05))
    steps = 3 * (len(ds["train"]) // 16)
    scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=steps)
    trainer = Trainer(model=model, args=args, train_dataset=ds["train"].with_transform(transform),
                      eval_dataset=ds["test"].with_transform(transform), data_collator=collate,
                      compute_metrics=compute_metrics, optimizers=(optimizer, scheduler))
    trainer.train()
    print(trainer.evaluate())
