"""Bag-of-words topic classifier on an imbalanced synthetic corpus with class re-weighting."""
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
torch.manual_seed(0)

VOCAB, N_CLASSES, N_DOCS = 500, 4, 400
# imbalanced label distribution
labels_np = rng.choice(N_CLASSES, size=N_DOCS, p=[0.7, 0.15, 0.1, 0.05])
docs = []
for y in labels_np:
    length = rng.integers(5, 30)
    base = y * 100
    docs.append(rng.integers(base, base + 150, size=length) % VOCAB)


def balanced_class_weights(y, n_classes):
    counts = np.bincount(y, minlength=n_classes)
    return len(y) / (n_classes * np.maximum(counts, 1))


class_weights = torch.tensor(balanced_class_weights(labels_np, N_CLASSES))


class BowClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(VOCAB, 64, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, N_CLASSES))

    def forward(self, tokens, offsets):
        return self.mlp(self.emb(tokens, offsets))


def collate(idx):
    toks = [torch.as_tensor(docs[i]) for i in idx]
    offsets = torch.tensor([0] + [len(t) for t in toks[:-1]]).cumsum(0)
    return torch.cat(toks), offsets, torch.as_tensor(labels_np[idx])


model = BowClassifier()
criterion = nn.CrossEntropyLoss(weight=class_weights)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(3):
    perm = rng.permutation(N_DOCS)
    for b in range(0, N_DOCS, 64):
        tokens, offsets, y = collate(perm[b:b + 64])
        logits = model(tokens, offsets)
        loss = criterion(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
