"""Bag-of-words sentiment classifier trained entirely in float16 (params + Adam state)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, DIM = 2000, 32


class BowClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.hidden = nn.Linear(DIM, 64)
        self.out = nn.Linear(64, 2)

    def forward(self, ids):
        h = self.emb(ids).mean(1)
        return self.out(torch.tanh(self.hidden(h)))


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)  # default eps=1e-8

    def step(self, ids, labels):
        logits = self.model(ids)
        loss = F.cross_entropy(logits.float(), labels)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


def sample_batch(bs=16, seq=20):
    # Zipf-ish token distribution: most rows of the table are rare
    probs = 1.0 / torch.arange(1, VOCAB + 1).float()
    ids = torch.multinomial(probs, bs * seq, replacement=True).view(bs, seq)
    return ids, torch.randint(0, 2, (bs,))


model = BowClassifier().half()
trainer = Trainer(model)
for step in range(6):
    ids, labels = sample_batch()
    print(f"step {step} loss {trainer.step(ids, labels):.4f}")
