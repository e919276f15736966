import math
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import Trainer, TrainingArguments, ViTConfig, ViTForImageClassification

torch.manual_seed(0)
CLASSES = ["box", "cylinder", "sphere"]


def render_depth(kind, yaw, size=32, rng=None):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64) / size * 2 - 1
    depth = np.full((size, size), 4.0)
    if kind == "sphere":
        r2 = xx ** 2 + yy ** 2
        depth = np.where(r2 < 0.36, 2.0 - np.sqrt(np.clip(0.36 - r2, 0, None)), depth)
    elif kind == "cylinder":
        inside = (np.abs(xx) < 0.5) & (np.abs(yy) < 0.7)
        depth = np.where(inside, 2.0 - np.sqrt(np.clip(0.25 - xx ** 2, 0, None)), depth)
    else:
        c, s = math.cos(yaw), math.sin(yaw)
        u, v = c * xx - s * yy, s * xx + c * yy
        depth = np.where((np.abs(u) < 0.5) & (np.abs(v) < 0.5), 1.7 + 0.2 * u, depth)
    depth = depth + 0.01 * rng.standard_normal(depth.shape)
    return (depth * 1000.0).astype(np.uint16)


class DepthViews(Dataset):
    def __init__(self, n=96, seed=0):
        rng = np.random.default_rng(seed)
        self.items = []
        for i in range(n):
            label = i % len(CLASSES)
            depth_png = render_depth(CLASSES[label], rng.uniform(0, math.pi), rng=rng)
            self.items.append((depth_png, label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        depth_png, label = self.items[i]
        depth = torch.from_numpy(depth_png.astype(np.float32)) / 1000.0
        inv = 1.0 / depth.clamp(min=0.1)
        x = torch.stack([depth / 4.0, inv, (depth < 3.5).float()], 0)
        return {"pixel_values": x, "labels": torch.tensor(label)}


def main():
    cfg = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=128, num_labels=len(CLASSES),
                    id2label=dict(enumerate(CLASSES)), label2id={c: i for i, c in enumerate(CLASSES)})
    model = ViTForImageClassification(cfg)
    args = TrainingArguments(
        output_dir=tempfile.mkdtemp(prefix="vit_depth_"),
        per_device_train_batch_size=16,
        per_device_eval_batch_size=16,
        learning_rate=1e-3,
        max_steps=30,
        logging_steps=5,
        bf16=True,
        use_cpu=True,
        save_strategy="no",
        report_to=[],
        dataloader_num_workers=0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=DepthViews(), eval_dataset=DepthViews(n=30, seed=1))
    trainer.train()
    for rec in trainer.state.log_history:
        if "loss" in rec:
            print(f"step {rec['step']} loss {rec['loss']:.4f}")
    metrics = trainer.evaluate()
    print(f"eval loss {metrics['eval_loss']:.4f}")
    print("param dtype", next(model.parameters()).dtype)


if __name__ == "__main__":
    main()
