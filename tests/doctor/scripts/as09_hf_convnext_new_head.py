import tempfile

import numpy as np
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from transformers import ConvNextConfig, ConvNextForImageClassification

torch.manual_seed(0)
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class FlowerDataset(Dataset):
    def __init__(self, n=96, size=64, num_classes=5, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.integers(0, 256, (n, size, size, 3), dtype=np.uint8)
        self.labels = rng.integers(0, num_classes, n)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = (self.images[i].astype(np.float32) / 255.0 - MEAN) / STD
        return {"pixel_values": torch.from_numpy(img).permute(2, 0, 1), "labels": int(self.labels[i])}


def collate(batch):
    return {
        "pixel_values": torch.stack([b["pixel_values"] for b in batch]).half(),
        "labels": torch.tensor([b["labels"] for b in batch]),
    }


def main():
    config = ConvNextConfig(
        num_channels=3, patch_size=4, hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 2, 1],
        num_labels=1000, image_size=64)
    with tempfile.TemporaryDirectory() as backbone_path:
        ConvNextForImageClassification(config).save_pretrained(backbone_path)
        model = ConvNextForImageClassification.from_pretrained(backbone_path, dtype=torch.float16)
    model.classifier = nn.Linear(config.hidden_sizes[-1], 5)
    model.config.num_labels = 5
    for name, p in model.named_parameters():
        p.requires_grad_(name.startswith("classifier") or "stages.3" in name)

    accelerator = Accelerator(cpu=True)
    loader = DataLoader(FlowerDataset(), batch_size=16, shuffle=True, collate_fn=collate)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=1e-2, momentum=0.9)
    model, opt, loader = accelerator.prepare(model, opt, loader)

    model.train()
    for epoch in range(2):
        for step, batch in enumerate(loader):
            out = model(**batch)
            accelerator.backward(out.loss)
            opt.step()
            opt.zero_grad()
        accelerator.print(f"epoch {epoch} loss {out.loss.item():.4f}")


if __name__ == "__main__":
    main()
