import tempfile
import torch
import torch.nn as nn
from transformers import Trainer, TrainerCallback, TrainingArguments, ViTConfig, ViTForImageClassification

torch.manual_seed(0)


class StripesDataset(torch.utils.data.Dataset):
    def __init__(self, n=256, size=32, n_classes=4):
        self.labels = torch.randint(0, n_classes, (n,))
        xs = torch.linspace(0, 1, size)
        gy, gx = torch.meshgrid(xs, xs, indexing="ij")
        patterns = torch.stack([torch.sin(12 * gx), torch.sin(12 * gy), torch.sin(12 * (gx + gy)), torch.sin(12 * (gx - gy))])
        img = patterns[self.labels].unsqueeze(1).repeat(1, 3, 1, 1)
        self.images = img + 0.3 * torch.randn_like(img)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"pixel_values": self.images[i], "labels": self.labels[i]}


def magnitude_masks(model, sparsity=0.5):
    masks = {}
    for name, mod in model.named_modules():
        if isinstance(mod, nn.Linear) and name.startswith("vit.layers"):
            w = mod.weight.detach().abs()
            thr = w.flatten().kthvalue(int(sparsity * w.numel())).values
            masks[name] = w > thr
    return masks


class KeepPruned(TrainerCallback):
    def __init__(self, model, masks):
        self.modules = dict(model.named_modules())
        self.masks = masks

    def apply(self):
        with torch.no_grad():
            for name, keep in self.masks.items():
                w = self.modules[name].weight
                w.mul_(keep.to(w.dtype))

    def on_train_begin(self, args, state, control, **kwargs):
        self.apply()

    def on_step_end(self, args, state, control, **kwargs):
        self.apply()


config = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
                   num_attention_heads=4, intermediate_size=128, num_labels=4)
model = ViTForImageClassification(config)
masks = magnitude_masks(model, sparsity=0.5)

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(
        output_dir=out_dir,
        per_device_train_batch_size=32,
        per_device_eval_batch_size=64,
        learning_rate=2e-3,
        num_train_epochs=2,
        logging_steps=8,
        bf16=True,
        use_cpu=True,
        save_strategy="no",
        report_to=[],
        dataloader_num_workers=0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=StripesDataset(), eval_dataset=StripesDataset(128),
                      callbacks=[KeepPruned(model, masks)])
    result = trainer.train()
    metrics = trainer.evaluate()

density = sum(m.float().sum().item() for m in masks.values()) / sum(m.numel() for m in masks.values())
print(f"train loss {result.training_loss:.4f} eval loss {metrics['eval_loss']:.4f} encoder density {density:.2f}")
