import re
from collections import Counter
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(9)
POS = "great superb loved wonderful fun brilliant moving".split()
NEG = "awful boring hated dull mess weak tedious".split()
NEUTRAL = "the movie film plot actors was and a it this story ending scenes".split()


def make_reviews(n):
    texts, labels = [], []
    for _ in range(n):
        y = int(rng.random() < 0.5)
        words = list(rng.choice(NEUTRAL, rng.integers(4, 14)))
        for _ in range(rng.integers(1, 4)):
            words.insert(rng.integers(0, len(words) + 1), rng.choice(POS if y else NEG))
        texts.append(" ".join(words) + rng.choice([".", "!", "!!"]))
        labels.append(y)
    texts += ["!!!", ":) :)", "..."]
    labels += [1, 1, 0]
    return texts, labels


def tokenize(text):
    return re.findall(r"[a-z']+", text.lower())


class ReviewDataset(Dataset):
    def __init__(self, texts, labels, vocab):
        self.ids = [[vocab.get(w, 1) for w in tokenize(t)] for t in texts]
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.ids[i], self.labels[i]


def collate(batch):
    ids, labels = zip(*batch)
    lengths = torch.tensor([len(x) for x in ids])
    tokens = torch.zeros(len(ids), max(int(lengths.max()), 1), dtype=torch.long)
    for i, x in enumerate(ids):
        tokens[i, :len(x)] = torch.tensor(x, dtype=torch.long)
    mask = (torch.arange(tokens.shape[1])[None] < lengths[:, None]).to(torch.float16)
    return tokens, mask, torch.tensor(labels)


class AttnPoolClassifier(nn.Module):
    def __init__(self, vocab_size, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.attn_score = nn.Linear(dim, 1)
        self.out = nn.Linear(dim, 2)

    def forward(self, tokens, mask):
        h = self.encoder(self.embed(tokens))
        scores = self.attn_score(h).squeeze(-1)
        scores = scores + (1.0 - mask) * -1e9
        weights = torch.softmax(scores, dim=-1)
        pooled = torch.einsum("bt,btd->bd", weights, h)
        return self.out(pooled)


texts, labels = make_reviews(1500)
order = rng.permutation(len(texts))
texts, labels = [texts[i] for i in order], [labels[i] for i in order]
counts = Counter(w for t in texts[:1200] for w in tokenize(t))
vocab = {w: i + 2 for i, (w, _) in enumerate(counts.most_common())}
train_dl = DataLoader(ReviewDataset(texts[:1200], labels[:1200], vocab), batch_size=64, shuffle=True,
                      collate_fn=collate)
val_dl = DataLoader(ReviewDataset(texts[1200:], labels[1200:], vocab), batch_size=300, collate_fn=collate)

model = AttnPoolClassifier(len(vocab) + 2)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(4):
    model.train()
    losses = []
    for tokens, mask, y in train_dl:
        loss = F.cross_entropy(model(tokens, mask), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        tokens, mask, y = next(iter(val_dl))
        acc = (model(tokens, mask).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch} loss {np.mean(losses):.4f} val_acc {acc:.3f}")
