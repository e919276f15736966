"""Character-level minGRU language model with the numerically stable log-space parallel
scan (Heinsen 2023): the scan runs in float32 via cumsum + logcumsumexp while the linear
layers run under bf16 autocast. Generation samples with torch.distributions.Categorical;
a TorchFunctionMode counts the torch calls made per generated token."""
import collections
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical
from torch.overrides import TorchFunctionMode

torch.manual_seed(0)
CORPUS = ("it was the best of times, it was the worst of times, it was the age of wisdom, "
          "it was the age of foolishness, it was the epoch of belief. ") * 30
vocab = sorted(set(CORPUS))
stoi = {c: i for i, c in enumerate(vocab)}
itos = dict(enumerate(vocab))
data = torch.tensor([stoi[c] for c in CORPUS])
SEQ, DIM, BATCH = 128, 64, 16


def log_g(x):
    return torch.where(x >= 0, torch.log(F.relu(x) + 0.5), -F.softplus(-x))


def heinsen_scan(log_coeffs, log_values):
    # h_t = a_t h_{t-1} + b_t, computed in log space
    a_star = torch.cumsum(log_coeffs, dim=1)
    log_h = a_star + torch.logcumsumexp(log_values - a_star, dim=1)
    return torch.exp(log_h)


class MinGRU(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_hidden_and_gate = nn.Linear(dim, 2 * dim, bias=False)
        self.to_out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        hidden, gate = self.to_hidden_and_gate(x).float().chunk(2, dim=-1)  # scan in fp32
        log_coeffs = -F.softplus(gate)          # log(1 - z)
        log_z = -F.softplus(-gate)              # log(z)
        out = heinsen_scan(log_coeffs, log_z + log_g(hidden))
        return self.to_out(out)


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


class CallCounter(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.counts[getattr(func, "__name__", str(func))] += 1
        return func(*args, **(kwargs or {}))


@torch.no_grad()
def generate(model, prompt, n_new=60, temperature=0.7):
    idx = torch.tensor([[stoi[c] for c in prompt]])
    for _ in range(n_new):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(idx[:, -SEQ:])[:, -1].float()
        nxt = Categorical(logits=logits / temperature).sample()
        idx = torch.cat([idx, nxt[:, None]], 1)
    return "".join(itos[i] for i in idx[0].tolist())


def main():
    t0 = time.time()
    model = MinGRULM(len(vocab))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(60):
        ix = torch.randint(0, len(data) - SEQ - 1, (BATCH,))
        x = torch.stack([data[i:i + SEQ] for i in ix])
        y = torch.stack([data[i + 1:i + SEQ + 1] for i in ix])
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float().view(-1, len(vocab)), y.view(-1))
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 20 == 0:
            print(f"step {step:2d} loss {loss.item():.4f}")
    model.eval()
    counter = CallCounter()
    with counter:
        text = generate(model, "it was the ", n_new=1)
    print(f"torch calls per token: {sum(counter.counts.values())} (top: {counter.counts.most_common(3)})")
    print(repr(generate(model, "it was the ")))
    print(f"final loss {loss.item():.4f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
