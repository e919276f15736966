"""Fine-tune a tiny ViT (transformers config, random init) with the HF Trainer, layer-wise
learning-rate decay and a cosine schedule with warmup. The data set is a pair of numpy arrays
(images uint8 NHWC, labels) as they come out of a pre-processed .npz cache."""
import tempfile
import numpy as np
import torch
from transformers import Trainer, TrainingArguments, ViTConfig, ViTForImageClassification, get_cosine_schedule_with_warmup

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 5

# "cache" as written by a preprocessing job: labels stored compactly
cache = {
    "images": rng.integers(0, 256, size=(120, 32, 32, 3), dtype=np.uint8),
    "labels": rng.integers(0, NUM_CLASSES, size=120).astype(np.int32),
}
MEAN, STD = np.float32(0.5), np.float32(0.5)


class NpzImageDataset(torch.utils.data.Dataset):
    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = (self.images[i].astype(np.float32) / 255.0 - MEAN) / STD
        return {"pixel_values": torch.from_numpy(img.transpose(2, 0, 1).copy()),
                "labels": torch.from_numpy(self.labels[i:i + 1])[0]}


def collate(batch):
    return {"pixel_values": torch.stack([b["pixel_values"] for b in batch]),
            "labels": torch.stack([b["labels"] for b in batch])}


def llrd_groups(model, lr, wd, decay=0.65):
    num_layers = model.config.num_hidden_layers + 1
    groups = []
    for name, p in model.named_parameters():
        if name.startswith("vit.embeddings"):
            lid = 0
        elif name.startswith("vit.encoder.layer."):
            lid = int(name.split(".")[3]) + 1
        else:
            lid = num_layers
        no_wd = p.ndim == 1 or "position_embeddings" in name or "cls_token" in name
        groups.append({"params": [p], "lr": lr * decay ** (num_layers - lid), "weight_decay": 0.0 if no_wd else wd})
    return groups


config = ViTConfig(image_size=32, patch_size=8, hidden_size=48, num_hidden_layers=3, num_attention_heads=3,
                   intermediate_size=96, num_labels=NUM_CLASSES, hidden_dropout_prob=0.0)
model = ViTForImageClassification(config)
train_ds = NpzImageDataset(cache["images"][:96], cache["labels"][:96])
eval_ds = NpzImageDataset(cache["images"][96:], cache["labels"][96:])

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=16, per_device_eval_batch_size=24,
                             num_train_epochs=2, logging_steps=3, eval_strategy="epoch", save_strategy="no",
                             report_to=[], use_cpu=True, dataloader_num_workers=0, remove_unused_columns=False)
    optimizer = torch.optim.AdamW(llrd_groups(model, 1e-3, 0.05), lr=1e-3)
    total_steps = 2 * (len(train_ds) // 16)
    scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=total_steps)
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                      data_collator=collate, optimizers=(optimizer, scheduler))
    trainer.train()
    print(trainer.evaluate())
