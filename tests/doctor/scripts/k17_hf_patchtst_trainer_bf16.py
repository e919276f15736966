"""Hugging Face PatchTST (random init from a config) trained with the Trainer using bf16 mixed
precision on CPU, on NumPy-windowed multivariate data wrapped in a datasets.Dataset; the holdout
is scored with MAPE / sMAPE / pinball in float32."""
import tempfile

import numpy as np
import torch
from datasets import Dataset
from transformers import PatchTSTConfig, PatchTSTForPrediction, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)
CONTEXT, HORIZON, C = 64, 16, 3

t = np.arange(3000)
data = np.stack(
    [50 + 10 * np.sin(2 * np.pi * t / 24 + c) + 3 * np.sin(2 * np.pi * t / 168) + rng.normal(0, 1, len(t))
     for c in range(C)], axis=1)  # float64, strictly positive
mean, std = data[:2400].mean(0), data[:2400].std(0)
norm = ((data - mean) / std).astype(np.float32)


def make_split(lo, hi, step):
    starts = range(lo, hi - CONTEXT - HORIZON, step)
    return Dataset.from_dict({
        "past_values": [norm[s : s + CONTEXT] for s in starts],
        "future_values": [norm[s + CONTEXT : s + CONTEXT + HORIZON] for s in starts],
    }).with_format("torch")


train_ds, valid_ds, test_ds = make_split(0, 2000, 3), make_split(2000, 2400, 8), make_split(2400, 3000, 8)

config = PatchTSTConfig(
    num_input_channels=C, context_length=CONTEXT, prediction_length=HORIZON, patch_length=8, patch_stride=8,
    d_model=32, num_attention_heads=4, num_hidden_layers=2, ffn_dim=64, dropout=0.0, head_dropout=0.0,
    scaling="std",
)
model = PatchTSTForPrediction(config)

with tempfile.TemporaryDirectory() as tmp:
    args = TrainingArguments(
        output_dir=tmp, per_device_train_batch_size=64, per_device_eval_batch_size=64, num_train_epochs=2,
        learning_rate=1e-3, bf16=True, use_cpu=True, eval_strategy="epoch", save_strategy="no",
        logging_steps=10, report_to=[], dataloader_num_workers=0, label_names=["future_values"],
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=valid_ds)
    trainer.train()
    metrics = trainer.evaluate()
    print("valid:", {k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)})
    assert np.isfinite(metrics["eval_loss"])

model.eval()
batch = test_ds[:]
past, future = batch["past_values"], batch["future_values"]
with torch.no_grad():
    pred = model(past_values=past).prediction_outputs.float()
y = future.double().numpy() * std + mean
yhat = pred.double().numpy() * std + mean
mape = np.mean(np.abs(y - yhat) / np.abs(y)) * 100
smape = np.mean(2 * np.abs(y - yhat) / (np.abs(y) + np.abs(yhat))) * 100
q = 0.5
pinball = np.mean(np.maximum(q * (y - yhat), (q - 1) * (y - yhat)))
print(f"test MAPE {mape:.2f}%  sMAPE {smape:.2f}%  pinball(0.5) {pinball:.3f}")
assert np.isfinite([mape, smape, pinball]).all()
