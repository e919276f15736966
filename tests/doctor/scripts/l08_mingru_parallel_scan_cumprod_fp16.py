"""Character-level language model built from minGRU layers ("Were RNNs all we needed?").
The recurrence h_t = (1 - z_t) * h_{t-1} + z_t * h~_t is evaluated in parallel over the
sequence with a cumulative product / cumulative sum scan. Model runs in fp16."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
CORPUS = ("it was the best of times, it was the worst of times, it was the age of wisdom, "
          "it was the age of foolishness, it was the epoch of belief. ") * 30
vocab = sorted(set(CORPUS))
stoi = {c: i for i, c in enumerate(vocab)}
data = torch.tensor([stoi[c] for c in CORPUS])
SEQ, DIM, BATCH = 96, 64, 16


def parallel_scan(a, b):
    """h_t = a_t * h_{t-1} + b_t with h_0 = 0, for all t at once."""
    a_star = torch.cumprod(a, dim=1)
    return a_star * torch.cumsum(b / a_star, dim=1)


class MinGRU(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_z = nn.Linear(dim, dim)
        self.to_h = nn.Linear(dim, dim)
        nn.init.constant_(self.to_z.bias, -2.0)  # start with a slow update gate (long memory)

    def forward(self, x):
        z = torch.sigmoid(self.to_z(x))
        h_tilde = self.to_h(x)
        return parallel_scan(1 - z, z * h_tilde)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.rnn = MinGRU(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.rnn(self.norm1(x))
        return x + self.ff(self.norm2(x))


class MinGRULM(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, DIM)
        self.blocks = nn.ModuleList([Block(DIM) for _ in range(2)])
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, vocab_size)

    def forward(self, idx):
        x = self.emb(idx)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x))


def main():
    t0 = time.time()
    model = MinGRULM(len(vocab)).half()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-4)
    for step in range(30):
        ix = torch.randint(0, len(data) - SEQ - 1, (BATCH,))
        x = torch.stack([data[i:i + SEQ] for i in ix])
        y = torch.stack([data[i + 1:i + SEQ + 1] for i in ix])
        logits = model(x)
        loss = F.cross_entropy(logits.float().view(-1, len(vocab)), y.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:2d} loss {loss.item():.4f}")
    print(f"final loss {loss.item():.4f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
