import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import Trainer, TrainingArguments, ViTConfig, ViTForImageClassification

torch.manual_seed(0)
NUM_CLASSES = 4
MEAN = np.array([0.5, 0.5, 0.5], dtype=np.float32)
STD = np.array([0.5, 0.5, 0.5], dtype=np.float32)


class ShapesDataset(Dataset):
    def __init__(self, n, size=32, seed=0):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, NUM_CLASSES, n)
        imgs = rng.integers(0, 80, (n, size, size, 3)).astype(np.uint8)
        for i, y in enumerate(self.labels):
            s = 8 + 4 * y
            imgs[i, 4:4 + s, 4:4 + s, y % 3] = 255
        self.images = imgs

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = (self.images[i].astype(np.float32) / 255.0 - MEAN) / STD
        return {"pixel_values": torch.from_numpy(img).permute(2, 0, 1), "labels": int(self.labels[i])}


def collate(batch):
    return {
        "pixel_values": torch.stack([b["pixel_values"] for b in batch]),
        "labels": torch.tensor([b["labels"] for b in batch], dtype=torch.long),
    }


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    logits = logits.astype(np.float64)
    top1 = (logits.argmax(-1) == labels).mean()
    top2 = (np.argsort(-logits, -1)[:, :2] == labels[:, None]).any(-1).mean()
    return {"top1": float(top1), "top2": float(top2)}


def main():
    config = ViTConfig(
        image_size=32, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
        num_attention_heads=4, intermediate_size=128, num_labels=NUM_CLASSES)
    model = ViTForImageClassification(config)

    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir, per_device_train_batch_size=16, per_device_eval_batch_size=32,
            num_train_epochs=2, learning_rate=1e-3, weight_decay=0.05, warmup_steps=2,
            label_smoothing_factor=0.1, bf16=True, use_cpu=True, logging_steps=4,
            eval_strategy="epoch", save_strategy="no", report_to=[], dataloader_num_workers=0,
            disable_tqdm=True)
        trainer = Trainer(
            model=model, args=args, train_dataset=ShapesDataset(128), eval_dataset=ShapesDataset(64, seed=1),
            data_collator=collate, compute_metrics=compute_metrics)
        result = trainer.train()
        print(f"train loss {result.training_loss:.4f}")
        metrics = trainer.evaluate()
        print(f"eval loss {metrics['eval_loss']:.4f} top1 {metrics['eval_top1']:.3f} top2 {metrics['eval_top2']:.3f}")


if __name__ == "__main__":
    main()
