"""Pointwise cross-encoder reranker (RoBERTa-style) distilled from teacher relevance scores.
Teacher scores come from a NumPy array (precomputed offline) and are squashed to [0, 1];
training runs through accelerate."""
import numpy as np
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from transformers import RobertaConfig, RobertaForSequenceClassification

rng = np.random.default_rng(3)
torch.manual_seed(3)
VOCAB, BOS, PAD, EOS = 700, 0, 1, 2

cfg = RobertaConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=96, num_labels=1,
                    pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)

N = 96
pairs = []
for _ in range(N):
    q = rng.integers(5, VOCAB, size=int(rng.integers(3, 7)))
    p = rng.integers(5, VOCAB, size=int(rng.integers(10, 25)))
    pairs.append(np.concatenate([[BOS], q, [EOS, EOS], p, [EOS]]))
# teacher logits from a bigger cross-encoder, dumped with np.save in a previous job
teacher_logits = rng.normal(0.0, 3.0, size=N)
teacher_probs = 1.0 / (1.0 + np.exp(-teacher_logits))


class PairDataset(Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return pairs[i], teacher_probs[i]


def collate(items):
    L = max(len(x[0]) for x in items)
    ids = torch.full((len(items), L), PAD, dtype=torch.long)
    for i, (seq, _) in enumerate(items):
        ids[i, :len(seq)] = torch.from_numpy(seq)
    labels = torch.from_numpy(np.array([x[1] for x in items]))
    return {"input_ids": ids, "attention_mask": (ids != PAD).long(), "labels": labels}


accelerator = Accelerator(cpu=True)
model = RobertaForSequenceClassification(cfg)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = DataLoader(PairDataset(), batch_size=16, shuffle=True, collate_fn=collate)
model, opt, loader = accelerator.prepare(model, opt, loader)
loss_fn = nn.BCELoss()

model.train()
for epoch in range(2):
    for step, batch in enumerate(loader):
        labels = batch.pop("labels")
        logits = model(**batch).logits.squeeze(-1)
        probs = torch.sigmoid(logits)
        loss = loss_fn(probs, labels)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        if step % 2 == 0:
            accelerator.print(f"epoch {epoch} step {step} bce {loss.item():.4f}")
accelerator.print("finished")
