import re
from collections import Counter
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(10)
TOPICS = {
    "sports": "match goal team coach season striker league injury".split(),
    "finance": "stocks bank rates inflation market shares profit bond".split(),
    "science": "study cells genome telescope physics lab species climate".split(),
    "tech": "app startup chip software cloud phone update robot".split(),
}
FILLER = "the a of in on said new report today after week more its was".split()
PRETRAINED = {w: rng.normal(0, 0.3, 50).astype(np.float32)
              for w in FILLER + sum(TOPICS.values(), [])[::2]}


def make_headlines(n):
    names = list(TOPICS)
    docs, ys = [], []
    for _ in range(n):
        y = rng.integers(0, len(names))
        words = list(rng.choice(FILLER, rng.integers(3, 8))) + list(rng.choice(TOPICS[names[y]], 3))
        docs.append(" ".join(rng.permutation(words)).capitalize())
        ys.append(y)
    return docs, ys


def tokenize(s):
    return re.findall(r"[a-z]+", s.lower())


class Headlines(Dataset):
    def __init__(self, docs, ys, vocab):
        self.ids = [[vocab.get(w, 1) for w in tokenize(d)] for d in docs]
        self.ys = ys

    def __len__(self):
        return len(self.ys)

    def __getitem__(self, i):
        return self.ids[i], self.ys[i]


def collate(batch):
    ids, ys = zip(*batch)
    offsets = torch.tensor([0] + [len(x) for x in ids[:-1]]).cumsum(0)
    flat = torch.tensor([t for x in ids for t in x], dtype=torch.long)
    return flat, offsets, torch.tensor(ys)


class BagClassifier(nn.Module):
    def __init__(self, vocab_size, n_classes, dim=50):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab_size, dim, mode="mean")
        self.fc = nn.Linear(dim, n_classes)

    def forward(self, flat, offsets):
        return self.fc(self.emb(flat, offsets))


docs, ys = make_headlines(2000)
counts = Counter(w for d in docs[:1600] for w in tokenize(d))
itos = ["<pad>", "<unk>"] + [w for w, _ in counts.most_common()]
vocab = {w: i for i, w in enumerate(itos)}

model = BagClassifier(len(itos), len(TOPICS))
trainable = np.ones(len(itos))
with torch.no_grad():
    for i, w in enumerate(itos):
        if w in PRETRAINED:
            model.emb.weight[i] = torch.from_numpy(PRETRAINED[w])
            trainable[i] = 0.0
grad_mask = torch.from_numpy(trainable).unsqueeze(1)
model.emb.weight.register_hook(lambda g: g * grad_mask)
print(f"vocab {len(itos)}, frozen pretrained rows {int((trainable == 0).sum())}")

train_dl = DataLoader(Headlines(docs[:1600], ys[:1600], vocab), batch_size=64, shuffle=True, collate_fn=collate)
val_dl = DataLoader(Headlines(docs[1600:], ys[1600:], vocab), batch_size=400, collate_fn=collate)
opt = torch.optim.Adagrad(model.parameters(), lr=0.2)

for epoch in range(5):
    for flat, offsets, y in train_dl:
        loss = F.cross_entropy(model(flat, offsets), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        flat, offsets, y = next(iter(val_dl))
        acc = (model(flat, offsets).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch} loss {loss.item():.4f} val_acc {acc:.3f}")
