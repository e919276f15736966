"""Convolutional VAE trained with the Hugging Face Trainer and bf16=True (CPU
autocast; weights stay fp32). Log-variance is clamped, the KL term is computed in
float32, and the images come from uint8 arrays in a datasets.Dataset.
"""
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import Trainer, TrainingArguments

torch.manual_seed(16)
rng = np.random.default_rng(16)
LATENT = 16


def make_icons(n):
    yy, xx = np.mgrid[0:16, 0:16]
    out = []
    for _ in range(n):
        img = np.zeros((16, 16, 3), dtype=np.uint8)
        img[(yy - rng.uniform(5, 11)) ** 2 + (xx - rng.uniform(5, 11)) ** 2 < rng.uniform(6, 25)] = rng.integers(60, 256, 3)
        out.append(img)
    return out


class ConvVAE(nn.Module):
    def __init__(self, beta=0.5):
        super().__init__()
        self.beta = beta
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 4, 2, 1), nn.SiLU(), nn.Conv2d(32, 64, 4, 2, 1), nn.SiLU(), nn.Flatten())
        self.to_stats = nn.Linear(64 * 16, 2 * LATENT)
        self.from_z = nn.Linear(LATENT, 64 * 16)
        self.dec = nn.Sequential(nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.SiLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1))

    def forward(self, pixel_values, labels=None):
        mu, logvar = self.to_stats(self.enc(pixel_values)).float().chunk(2, dim=1)
        logvar = logvar.clamp(-10.0, 10.0)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        recon = torch.tanh(self.dec(self.from_z(z).view(-1, 64, 4, 4)))
        rec = F.mse_loss(recon.float(), pixel_values.float(), reduction="none").flatten(1).sum(1).mean()
        kl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1)).mean()
        return {"loss": rec + self.beta * kl, "recon": recon}


def transform(batch):
    batch["pixel_values"] = [torch.from_numpy(np.asarray(im, dtype=np.uint8)).permute(2, 0, 1).float() / 127.5 - 1
                             for im in batch["image"]]
    return batch


def collate(examples):
    return {"pixel_values": torch.stack([e["pixel_values"] for e in examples])}


ds = Dataset.from_dict({"image": make_icons(256)})
ds.set_transform(transform)
args = TrainingArguments(
    output_dir=tempfile.mkdtemp(),
    per_device_train_batch_size=32,
    num_train_epochs=2,
    learning_rate=2e-3,
    logging_steps=4,
    bf16=True,
    use_cpu=True,
    save_strategy="no",
    remove_unused_columns=False,
    report_to=[],
)
model = ConvVAE()
trainer = Trainer(model=model, args=args, train_dataset=ds, data_collator=collate)
result = trainer.train()
print("train loss", result.training_loss)

model.eval()
with torch.no_grad():
    z = torch.randn(8, LATENT)
    samples = torch.tanh(model.dec(model.from_z(z).view(-1, 64, 4, 4)))
imgs = ((samples + 1) * 127.5).clamp(0, 255).round().to(torch.uint8).permute(0, 2, 3, 1).numpy()
print("samples", imgs.shape, imgs.dtype, "mean", imgs.mean())
