import random
from collections import Counter

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

random.seed(0)
torch.manual_seed(0)

TOPICS = [
    "cat dog pet fur paw bark meow vet leash kitten puppy",
    "stock market trade price share bond yield fund index broker",
    "rain cloud storm wind snow sunny forecast weather thunder fog",
    "goal team match score player coach league referee pitch cup",
]
WINDOW, DIM, NEG = 3, 32, 5


def build_corpus(n_sent=1500, length=12):
    words = [t.split() for t in TOPICS]
    fillers = "the a of and to in is on with".split()
    corpus = []
    for _ in range(n_sent):
        topic = random.choice(words)
        corpus.extend(random.choice(topic) if random.random() < 0.7 else random.choice(fillers)
                      for _ in range(length))
    return corpus


class SkipGramPairs(Dataset):
    def __init__(self, corpus, vocab, counts, t=1e-3):
        total = sum(counts.values())
        freq = {w: c / total for w, c in counts.items()}
        ids = [vocab[w] for w in corpus]
        self.pairs = []
        for i, c in enumerate(ids):
            keep = min(1.0, (t / freq[corpus[i]]) ** 0.5 + t / freq[corpus[i]])
            for j in range(max(0, i - WINDOW), min(len(ids), i + WINDOW + 1)):
                if j != i:
                    self.pairs.append((c, ids[j], keep))

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, k):
        return self.pairs[k]


def collate(batch):
    arr = torch.tensor(batch)
    return arr[:, 0], arr[:, 1], arr[:, 2]


class SGNS(nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.in_embed = nn.Embedding(vocab_size, dim)
        self.out_embed = nn.Embedding(vocab_size, dim)
        nn.init.uniform_(self.in_embed.weight, -0.5 / dim, 0.5 / dim)
        nn.init.zeros_(self.out_embed.weight)

    def forward(self, center, context, negatives, weight):
        v = self.in_embed(center)
        u_pos = self.out_embed(context)
        u_neg = self.out_embed(negatives)
        pos = F.logsigmoid((v * u_pos).sum(-1))
        neg = F.logsigmoid(-(u_neg @ v.unsqueeze(-1)).squeeze(-1)).sum(-1)
        return -((pos + neg) * weight).sum() / weight.sum()


def main():
    corpus = build_corpus()
    counts = Counter(corpus)
    itos = sorted(counts)
    vocab = {w: i for i, w in enumerate(itos)}
    unigram = torch.tensor([counts[w] for w in itos], dtype=torch.float) ** 0.75
    unigram /= unigram.sum()
    ds = SkipGramPairs(corpus, vocab, counts)
    loader = DataLoader(ds, batch_size=512, shuffle=True, collate_fn=collate)
    model = SGNS(len(vocab), DIM)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for epoch in range(2):
        total = 0.0
        for step, (center, context, weight) in enumerate(loader):
            negatives = torch.multinomial(unigram, center.numel() * NEG, replacement=True).view(-1, NEG)
            loss = model(center, context, negatives, weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            if step >= 60:
                break
        print(f"epoch {epoch} loss {total / (step + 1):.4f}")
    emb = F.normalize(model.in_embed.weight.detach(), dim=-1)
    for w in ["cat", "stock", "rain", "goal"]:
        sims = emb @ emb[vocab[w]]
        best = [itos[i] for i in sims.topk(4).indices.tolist() if itos[i] != w][:3]
        print(w, "->", best)


if __name__ == "__main__":
    main()
