import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset
from transformers import ConvNextConfig, ConvNextForImageClassification, Trainer, TrainingArguments

torch.manual_seed(0)

IMG, N_CLASSES = 32, 5


class StripeImages(Dataset):
    """Class k = stripes at orientation/frequency k, plus noise."""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, N_CLASSES, (n,), generator=g)
        yy, xx = torch.meshgrid(torch.arange(IMG), torch.arange(IMG), indexing="ij")
        imgs = []
        for k in self.labels.tolist():
            angle = k * np.pi / N_CLASSES
            wave = torch.sin((xx * np.cos(angle) + yy * np.sin(angle)) * (0.3 + 0.1 * k))
            img = wave[None].repeat(3, 1, 1) + 0.4 * torch.randn(3, IMG, IMG, generator=g)
            imgs.append(img)
        self.pixels = torch.stack(imgs)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"pixel_values": self.pixels[i], "labels": self.labels[i]}


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    probs = torch.softmax(torch.from_numpy(logits), dim=-1).numpy()
    return {
        "accuracy": float((logits.argmax(-1) == labels).mean()),
        "mean_confidence": float(probs.max(-1).mean()),
    }


def embed(trainer, dataset):
    """Run trainer.predict and capture the pooled (pre-classifier) features."""
    feats = []
    handle = trainer.model.convnext.layernorm.register_forward_hook(lambda m, i, o: feats.append(o.detach()))
    out = trainer.predict(dataset)
    handle.remove()
    return torch.cat(feats), out


config = ConvNextConfig(
    num_channels=3, patch_size=4, num_stages=2, hidden_sizes=[24, 48], depths=[2, 2],
    image_size=IMG, num_labels=N_CLASSES, drop_path_rate=0.0,
)
model = ConvNextForImageClassification(config)
print("params:", sum(p.numel() for p in model.parameters()))

args = TrainingArguments(
    output_dir=tempfile.mkdtemp(),
    per_device_train_batch_size=32,
    per_device_eval_batch_size=32,
    num_train_epochs=3,
    learning_rate=3e-3,
    weight_decay=0.05,
    lr_scheduler_type="cosine",
    warmup_steps=2,
    logging_steps=5,
    save_strategy="no",
    report_to=[],
    bf16=True,
    bf16_full_eval=True,
    use_cpu=True,
)
trainer = Trainer(
    model=model,
    args=args,
    train_dataset=StripeImages(256, 0),
    eval_dataset=StripeImages(96, 1),
    compute_metrics=compute_metrics,
)
trainer.train()

# closed-form ridge linear probe on the learned embedding space
train_ds, test_ds = trainer.train_dataset, trainer.eval_dataset
train_emb, _ = embed(trainer, train_ds)
test_emb, test_out = embed(trainer, test_ds)
print({k: round(v, 4) for k, v in test_out.metrics.items() if isinstance(v, float)})


def add_bias(x):
    return torch.cat([x, torch.ones(len(x), 1, dtype=x.dtype)], dim=1)


X, Xt = add_bias(train_emb), add_bias(test_emb)
Y = F.one_hot(train_ds.labels, N_CLASSES).to(X.dtype)
ridge = 1e-2 * torch.eye(X.shape[1], dtype=X.dtype)
W = torch.linalg.solve(X.T @ X + ridge, X.T @ Y)
probe_acc = ((Xt @ W).argmax(-1) == test_ds.labels).float().mean().item()
print(f"linear-probe accuracy: {probe_acc:.3f} (head accuracy {test_out.metrics['test_accuracy']:.3f})")
