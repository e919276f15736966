import random

import numpy as np
import torch
from torch.utils.data import DataLoader
from transformers import RobertaConfig, RobertaForTokenClassification

torch.manual_seed(0)
random.seed(0)

TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
VOCAB, PAD_ID = 500, 1


def make_sentence(rng):
    n_words = rng.randint(4, 14)
    words, tags = [], []
    for _ in range(n_words):
        r = rng.random()
        if r < 0.15:
            words += [rng.randint(20, 60), rng.randint(20, 60)]
            tags += [1, 2]
        elif r < 0.25:
            words.append(rng.randint(60, 100))
            tags.append(3)
        else:
            words.append(rng.randint(100, VOCAB - 1))
            tags.append(0)
    # sub-word split: every word longer than id 300 becomes two pieces
    input_ids, labels = [0], [-100]
    for w, t in zip(words, tags):
        pieces = [w, (w * 7) % VOCAB] if w > 300 else [w]
        input_ids += pieces
        labels += [t] + [-100] * (len(pieces) - 1)
    input_ids.append(2)
    labels.append(-100)
    return {"input_ids": input_ids, "labels": labels}


rng = random.Random(1)
train = [make_sentence(rng) for _ in range(128)]
dev = [make_sentence(rng) for _ in range(32)]


def collate_ner(batch):
    max_len = max(len(ex["input_ids"]) for ex in batch)
    ids = np.full((len(batch), max_len), PAD_ID, dtype=np.int64)
    labels = np.full((len(batch), max_len), -100, dtype=np.int32)
    mask = np.zeros((len(batch), max_len), dtype=np.int64)
    for i, ex in enumerate(batch):
        n = len(ex["input_ids"])
        ids[i, :n] = ex["input_ids"]
        labels[i, :n] = ex["labels"]
        mask[i, :n] = 1
    return {
        "input_ids": torch.from_numpy(ids),
        "attention_mask": torch.from_numpy(mask),
        "labels": torch.from_numpy(labels),
    }


config = RobertaConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=64, pad_token_id=PAD_ID,
    num_labels=len(TAGS), id2label=dict(enumerate(TAGS)), label2id={t: i for i, t in enumerate(TAGS)},
)
model = RobertaForTokenClassification(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)

train_loader = DataLoader(train, batch_size=16, shuffle=True, collate_fn=collate_ner)
dev_loader = DataLoader(dev, batch_size=16, collate_fn=collate_ner)

for epoch in range(2):
    model.train()
    total = 0.0
    for step, batch in enumerate(train_loader):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(**batch)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        total += out.loss.item()
    print(f"epoch {epoch} train loss {total / len(train_loader):.4f}")

    model.eval()
    correct = count = 0
    with torch.no_grad():
        for batch in dev_loader:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
            preds = logits.float().argmax(-1)
            keep = batch["labels"] != -100
            correct += (preds[keep] == batch["labels"][keep]).sum().item()
            count += keep.sum().item()
    print(f"epoch {epoch} dev token accuracy {correct / count:.3f}")
