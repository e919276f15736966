"""Listwise cross-encoder reranker (RoBERTa-style) trained with a Trainer subclass: each
training example is a query with 1 positive and 3 hard negatives scored jointly, softmax
cross-entropy over the group.  bf16 autocast on CPU; evaluation computes NDCG@10 and MRR
with NumPy from fp32 scores."""
import os
import tempfile
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset
from transformers import RobertaConfig, RobertaForSequenceClassification, Trainer, TrainingArguments

warnings.filterwarnings("ignore")
torch.manual_seed(9)
rng = np.random.default_rng(9)
VOCAB, BOS, PAD, EOS = 800, 0, 1, 2
GROUP = 4


def pair(q, doc):
    return [BOS, *q, EOS, EOS, *doc, EOS]


def make_query():
    t = rng.integers(5, VOCAB, size=4).tolist()
    q = t[:3]
    pos = t + rng.integers(5, VOCAB, size=int(rng.integers(6, 14))).tolist()
    hard = [t[:1] + rng.integers(5, VOCAB, size=int(rng.integers(8, 16))).tolist() for _ in range(6)]
    return q, pos, hard


class GroupData(Dataset):
    def __init__(self, n):
        self.items = [make_query() for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        q, pos, hard = self.items[i]
        negs = [hard[j] for j in rng.choice(len(hard), GROUP - 1, replace=False)]
        return {"seqs": [pair(q, d) for d in [pos, *negs]]}


def collate(features):
    seqs = [s for f in features for s in f["seqs"]]
    L = max(map(len, seqs))
    ids = torch.tensor([s + [PAD] * (L - len(s)) for s in seqs])
    return {"input_ids": ids, "attention_mask": (ids != PAD).long()}


class ListwiseTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        logits = model(**inputs).logits.view(-1, GROUP).float()
        target = torch.zeros(logits.size(0), dtype=torch.long)  # positive is always first
        loss = F.cross_entropy(logits, target)
        return (loss, logits) if return_outputs else loss


cfg = RobertaConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=80, num_labels=1,
                    pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)
model = RobertaForSequenceClassification(cfg)

with tempfile.TemporaryDirectory() as out:
    args = TrainingArguments(output_dir=out, per_device_train_batch_size=8, learning_rate=3e-4,
                             max_steps=10, logging_steps=5, warmup_steps=2, bf16=True, use_cpu=True,
                             save_strategy="no", report_to=[], disable_tqdm=True,
                             remove_unused_columns=False)
    trainer = ListwiseTrainer(model=model, args=args, train_dataset=GroupData(64), data_collator=collate)
    trainer.train()

# ---- evaluation: rerank 10 candidates per query (1 relevant, 2 partially relevant, 7 random)
model.eval()
ndcgs, rrs = [], []
for _ in range(20):
    q, pos, hard = make_query()
    cands = [pos, *hard[:2], *[rng.integers(5, VOCAB, size=12).tolist() for _ in range(7)]]
    rel = np.array([2, 1, 1, 0, 0, 0, 0, 0, 0, 0], dtype=np.float64)
    batch = collate([{"seqs": [pair(q, d) for d in cands]}])
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        scores = model(**batch).logits.squeeze(-1)
    scores = scores.float().numpy()
    order = np.argsort(-scores)
    gains = (2 ** rel[order] - 1) / np.log2(np.arange(2, len(order) + 2))
    ideal = (2 ** np.sort(rel)[::-1] - 1) / np.log2(np.arange(2, len(order) + 2))
    ndcgs.append(gains.sum() / ideal.sum())
    rrs.append(1.0 / (np.where(order == 0)[0][0] + 1))
print(f"NDCG@10 {np.mean(ndcgs):.4f}  MRR {np.mean(rrs):.4f}")
