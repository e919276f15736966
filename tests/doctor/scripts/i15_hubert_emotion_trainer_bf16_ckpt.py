"""Speech emotion recognition: fine-tune HuBERT (tiny config) with a classification head
using the HF Trainer.  The 'pretrained' backbone is distributed as a bf16 safetensors
file; it is loaded into the backbone with assign=True to avoid a second copy in memory."""
import math
import tempfile

import numpy as np
import torch
from datasets import Dataset
from safetensors.torch import load_file, save_file
from transformers import HubertConfig, HubertForSequenceClassification, HubertModel, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)
SR = 16000
EMOTIONS = ["neutral", "happy", "sad", "angry"]

config = HubertConfig(
    hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
    conv_dim=(32, 32, 32), conv_stride=(5, 4, 4), conv_kernel=(10, 4, 4), num_conv_pos_embeddings=16,
    num_conv_pos_embedding_groups=4, feat_extract_norm="group", num_labels=len(EMOTIONS),
    classifier_proj_size=16, mask_time_prob=0.0,
)

work = tempfile.TemporaryDirectory()

# ---- "upstream": pretrained backbone exported in bf16 to halve the download ----
upstream = HubertModel(config)
save_file({k: v.to(torch.bfloat16).contiguous() for k, v in upstream.state_dict().items()},
          f"{work.name}/hubert_base_bf16.safetensors")
del upstream


def emotional_speech(label):
    """pitch level / range / tempo differ per emotion"""
    n = int(SR * 0.8)
    t = np.arange(n) / SR
    base = [140, 220, 110, 180][label] * rng.uniform(0.9, 1.1)
    rng_hz = [10, 60, 5, 80][label]
    rate = [2, 5, 1, 7][label]
    f0 = base + rng_hz * np.sin(2 * np.pi * rate * t)
    phase = 2 * np.pi * np.cumsum(f0) / SR
    w = sum(np.sin(k * phase) / k for k in range(1, 5)) * (0.2 + 0.1 * label)
    w = w + 0.01 * rng.standard_normal(n)
    return ((w - w.mean()) / (w.std() + 1e-7)).astype(np.float32)


labels = rng.integers(0, len(EMOTIONS), size=64)
ds = Dataset.from_dict({"input_values": [emotional_speech(int(l)) for l in labels], "label": labels.tolist()})
ds = ds.train_test_split(test_size=0.25, seed=0)


def collate(feats):
    x = torch.stack([torch.as_tensor(f["input_values"]) for f in feats])
    y = torch.tensor([f["label"] for f in feats])
    return {"input_values": x, "labels": y}


def compute_metrics(p):
    return {"accuracy": float((p.predictions.argmax(-1) == p.label_ids).mean())}


# ---- downstream fine-tuning ----
model = HubertForSequenceClassification(config)
backbone_sd = load_file(f"{work.name}/hubert_base_bf16.safetensors")
missing, unexpected = model.hubert.load_state_dict(backbone_sd, strict=False, assign=True)
print("missing:", missing, "unexpected:", unexpected)
model.freeze_feature_encoder()

args = TrainingArguments(
    output_dir=work.name, per_device_train_batch_size=8, per_device_eval_batch_size=8, learning_rate=5e-4,
    num_train_epochs=2, logging_steps=3, eval_strategy="epoch", save_strategy="no", report_to=[],
    use_cpu=True, remove_unused_columns=False, seed=0,
)
trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                  data_collator=collate, compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
work.cleanup()
