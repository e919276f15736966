import random

import torch
from transformers import DistilBertConfig, DistilBertForMultipleChoice

torch.manual_seed(0)
random.seed(0)

VOCAB, N_CHOICES, MAX_LEN = 600, 4, 20
CLS, SEP, PAD = 101 % VOCAB, 102 % VOCAB, 0


def make_example(rng):
    """Context + 4 candidate endings; the right ending repeats a context keyword."""
    ctx = [rng.randint(200, VOCAB - 1) for _ in range(rng.randint(4, 8))]
    key = rng.choice(ctx)
    label = rng.randrange(N_CHOICES)
    endings = []
    for c in range(N_CHOICES):
        end = [rng.randint(200, VOCAB - 1) for _ in range(rng.randint(2, 6))]
        if c == label:
            end[rng.randrange(len(end))] = key
        endings.append(end)
    return ctx, endings, label


def encode(examples):
    ids = torch.full((len(examples), N_CHOICES, MAX_LEN), PAD, dtype=torch.long)
    mask = torch.zeros_like(ids)
    labels = torch.tensor([lab for _, _, lab in examples])
    for i, (ctx, endings, _) in enumerate(examples):
        for c, end in enumerate(endings):
            seq = ([CLS] + ctx + [SEP] + end + [SEP])[:MAX_LEN]
            ids[i, c, : len(seq)] = torch.tensor(seq)
            mask[i, c, : len(seq)] = 1
    return ids, mask, labels


rng = random.Random(3)
train = [make_example(rng) for _ in range(96)]
test = [make_example(rng) for _ in range(32)]

config = DistilBertConfig(
    vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4, hidden_dim=128,
    max_position_embeddings=64, pad_token_id=PAD, seq_classif_dropout=0.1,
)
model = DistilBertForMultipleChoice(config)
model.half()
print("params:", sum(p.numel() for p in model.parameters()), "dtype:", next(model.parameters()).dtype)

optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)

BATCH = 16
for epoch in range(2):
    model.train()
    random.shuffle(train)
    for start in range(0, len(train), BATCH):
        ids, mask, labels = encode(train[start:start + BATCH])
        out = model(input_ids=ids, attention_mask=mask, labels=labels)
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        step = start // BATCH
        if step % 2 == 0:
            print(f"epoch {epoch} step {step} loss {out.loss.item():.4f}")

model.eval()
with torch.no_grad():
    ids, mask, labels = encode(test)
    out = model(input_ids=ids, attention_mask=mask, labels=labels)
    acc = (out.logits.argmax(-1) == labels).float().mean().item()
print(f"test loss {out.loss.item():.4f} accuracy {acc:.3f}")
