import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

POS = ["great", "excellent", "loved", "wonderful", "superb", "fun", "charming"]
NEG = ["awful", "boring", "hated", "terrible", "dull", "weak", "messy"]
FILLER = ["the", "movie", "plot", "was", "and", "acting", "really", "a", "bit", "story", "quite", "very"]


def make_reviews(n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        label = rng.randint(0, 1)
        words = [rng.choice(FILLER) for _ in range(rng.randint(4, 20))]
        for _ in range(rng.randint(1, 3)):
            words.insert(rng.randrange(len(words)), rng.choice(POS if label else NEG))
        out.append((" ".join(words), label))
    return out


class Reviews(Dataset):
    def __init__(self, reviews, vocab):
        self.items = [([vocab.get(w, 1) for w in text.split()], y) for text, y in reviews]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, seed=0):
        self.lengths, self.batch_size, self.rng = lengths, batch_size, random.Random(seed)

    def __iter__(self):
        order = sorted(range(len(self.lengths)), key=lambda i: self.lengths[i] + self.rng.random())
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        self.rng.shuffle(batches)
        return iter(batches)

    def __len__(self):
        return (len(self.lengths) + self.batch_size - 1) // self.batch_size


def collate(batch, pad_id=0):
    max_len = max(len(ids) for ids, _ in batch)
    tokens = torch.zeros(len(batch), max_len)
    for i, (ids, _) in enumerate(batch):
        tokens[i, :len(ids)] = torch.tensor(ids)
    labels = torch.tensor([y for _, y in batch])
    return tokens, tokens != pad_id, labels


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab_size, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.classifier = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, 2))

    def forward(self, tokens, mask):
        h = self.embed(tokens) * mask.unsqueeze(-1)
        pooled = h.sum(1) / mask.sum(1, keepdim=True).clamp_min(1)
        return self.classifier(pooled)


def main():
    torch.manual_seed(0)
    train_reviews, val_reviews = make_reviews(2000, 0), make_reviews(400, 1)
    words = sorted({w for text, _ in train_reviews for w in text.split()})
    vocab = {w: i + 2 for i, w in enumerate(words)}
    train_ds, val_ds = Reviews(train_reviews, vocab), Reviews(val_reviews, vocab)
    train_loader = DataLoader(train_ds, batch_sampler=BucketBatchSampler([len(x) for x, _ in train_ds.items], 64),
                              collate_fn=collate)
    val_loader = DataLoader(val_ds, batch_size=128, collate_fn=collate)

    model = BagOfEmbeddings(len(vocab) + 2)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for epoch in range(3):
        model.train()
        for tokens, mask, labels in train_loader:
            loss = F.cross_entropy(model(tokens, mask), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            correct = sum((model(t, m).argmax(1) == y).sum().item() for t, m, y in val_loader)
        print(f"epoch {epoch} train loss {loss.item():.4f} val acc {correct / len(val_ds):.3f}")


if __name__ == "__main__":
    main()
