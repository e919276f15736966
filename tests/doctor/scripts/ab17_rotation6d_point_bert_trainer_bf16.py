"""Rotation regression from a point cloud: tiny BERT encoder over point tokens predicts the
6D rotation representation (Zhou et al.), trained with the HF Trainer in bf16 mixed precision.
Gram-Schmidt and the geodesic loss run in fp32 with a clamped acos."""
import math
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import BertConfig, BertModel, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_TOK = 32

# asymmetric template: an 'L' shaped bracket with a peg
TEMPLATE = np.concatenate([
    rng.uniform([0, 0, 0], [1.0, 0.2, 0.1], (12, 3)),
    rng.uniform([0, 0, 0], [0.2, 0.6, 0.1], (12, 3)),
    rng.uniform([0.8, 0.0, 0.1], [0.9, 0.1, 0.5], (8, 3)),
])
TEMPLATE -= TEMPLATE.mean(0)


def random_rotation():
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def build(n):
    pts, rots = [], []
    for _ in range(n):
        R = random_rotation()
        pts.append((TEMPLATE @ R.T + 0.005 * rng.normal(size=TEMPLATE.shape)).astype(np.float32))
        rots.append(R.astype(np.float32))
    return Dataset.from_dict({"points": pts, "rotation": rots})


def rot6d_to_matrix(x):
    a1, a2 = x[..., :3], x[..., 3:]
    b1 = F.normalize(a1, dim=-1)
    b2 = F.normalize(a2 - (b1 * a2).sum(-1, keepdim=True) * b1, dim=-1)
    b3 = torch.linalg.cross(b1, b2)
    return torch.stack([b1, b2, b3], -1)


def geodesic(R1, R2, eps=1e-6):
    cos = ((R1.transpose(-1, -2) @ R2).diagonal(dim1=-2, dim2=-1).sum(-1) - 1) / 2
    return torch.acos(cos.clamp(-1 + eps, 1 - eps))


class RotNet(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                         max_position_embeddings=N_TOK, vocab_size=4, type_vocab_size=1)
        self.tok = nn.Sequential(nn.Linear(3, 64), nn.GELU(), nn.Linear(64, 64))
        self.pos = nn.Parameter(torch.zeros(1, N_TOK, 64))  # template order is fixed, so learn per-slot embeddings
        self.encoder = BertModel(cfg, add_pooling_layer=False)
        self.head = nn.Linear(64, 6)

    def forward(self, points, rotation=None):
        h = self.encoder(inputs_embeds=self.tok(points) + self.pos).last_hidden_state.mean(1)
        with torch.autocast("cpu", enabled=False):  # rotation maths in fp32 (autocast would run the bmm in bf16)
            R = rot6d_to_matrix(self.head(h).float())
            loss = geodesic(R, rotation.float()).mean() if rotation is not None else None
        return {"loss": loss, "rotation": R}


def collate(features):
    return {"points": torch.tensor(np.array([f["points"] for f in features]), dtype=torch.float32),
            "rotation": torch.tensor(np.array([f["rotation"] for f in features]), dtype=torch.float32)}


def main():
    train_ds, eval_ds = build(256), build(64)
    model = RotNet()
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(output_dir=out, per_device_train_batch_size=32, per_device_eval_batch_size=32,
                                 num_train_epochs=3, learning_rate=1e-3, logging_steps=8, save_strategy="no",
                                 report_to=[], use_cpu=True, bf16=True, remove_unused_columns=False, disable_tqdm=True,
                                 label_names=["rotation"])
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds, data_collator=collate)
        trainer.train()
        metrics = trainer.evaluate()
        print(f"eval geodesic error {math.degrees(metrics['eval_loss']):.1f} deg")


if __name__ == "__main__":
    main()
