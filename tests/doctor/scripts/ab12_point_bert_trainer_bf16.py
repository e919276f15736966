"""Point-cloud classification with a tiny BERT encoder over point tokens, trained with the HF Trainer.

Each cloud is split into 16 local patches (FPS-free: sorted along x), each patch -> mean-centred
points -> linear patch embedding -> BERT encoder -> [CLS]-style mean pool -> classifier.
The model is kept in bfloat16 to halve memory.
"""
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import BertConfig, BertModel, Trainer, TrainingArguments

rng = np.random.default_rng(0)
N_PATCH, PATCH = 16, 8


def make_cloud(label):
    n = N_PATCH * PATCH
    if label == 0:  # torus
        u, v = rng.uniform(0, 2 * np.pi, (2, n))
        p = np.stack([(1 + 0.3 * np.cos(v)) * np.cos(u), (1 + 0.3 * np.cos(v)) * np.sin(u), 0.3 * np.sin(v)], 1)
    elif label == 1:  # helix
        t = rng.uniform(0, 4 * np.pi, n)
        p = np.stack([np.cos(t), np.sin(t), t / (4 * np.pi)], 1) + 0.02 * rng.normal(size=(n, 3))
    else:  # plane
        p = np.concatenate([rng.uniform(-1, 1, (n, 2)), 0.01 * rng.normal(size=(n, 1))], 1)
    return p[np.argsort(p[:, 0])].tolist()


def build_dataset(n=96):
    labels = [i % 3 for i in range(n)]
    return Dataset.from_dict({"points": [make_cloud(l) for l in labels], "labels": labels})


class PointBert(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        cfg = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                         max_position_embeddings=N_PATCH, vocab_size=4, type_vocab_size=1)
        self.patch_embed = nn.Sequential(nn.Linear(PATCH * 3, 64), nn.GELU(), nn.Linear(64, 64))
        self.center_embed = nn.Linear(3, 64)
        self.encoder = BertModel(cfg, add_pooling_layer=False)
        self.cls = nn.Linear(64, n_classes)

    def forward(self, points, labels=None):
        B = points.shape[0]
        patches = points.view(B, N_PATCH, PATCH, 3)
        centers = patches.mean(2)
        local = (patches - centers[:, :, None]).flatten(2)
        tokens = self.patch_embed(local) + self.center_embed(centers)
        h = self.encoder(inputs_embeds=tokens).last_hidden_state.mean(1)
        logits = self.cls(h)
        loss = F.cross_entropy(logits.float(), labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def collate(features):
    pts = torch.tensor(np.array([f["points"] for f in features]), dtype=torch.float32)
    labels = torch.tensor([f["labels"] for f in features], dtype=torch.long)
    return {"points": pts, "labels": labels}


def main():
    ds = build_dataset().train_test_split(test_size=0.25, seed=0)
    model = PointBert().to(torch.bfloat16)
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(output_dir=out, per_device_train_batch_size=16, per_device_eval_batch_size=16,
                                 num_train_epochs=2, learning_rate=5e-4, logging_steps=2, save_strategy="no",
                                 report_to=[], use_cpu=True, remove_unused_columns=False, disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"], data_collator=collate)
        trainer.train()
        print(trainer.evaluate())


if __name__ == "__main__":
    main()
