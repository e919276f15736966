import math

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_SYMBOLS = 24
SEQ_LEN = 32
PREC = 16
RANS_L = 1 << 31


class CausalBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x, allowed):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        x = x + self.proj((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


class ARPrior(nn.Module):
    def __init__(self, dim=64, heads=4, layers=2):
        super().__init__()
        self.emb = nn.Embedding(NUM_SYMBOLS + 1, dim)
        self.pos = nn.Parameter(torch.randn(SEQ_LEN, dim) * 0.02)
        self.blocks = nn.ModuleList([CausalBlock(dim, heads) for _ in range(layers)])
        self.head = nn.Linear(dim, NUM_SYMBOLS)

    def forward(self, symbols):
        b, t = symbols.shape
        start = torch.full((b, 1), NUM_SYMBOLS, dtype=torch.long)
        x = self.emb(torch.cat([start, symbols[:, :-1]], 1)) + self.pos[:t]
        allowed = torch.ones(t, t, dtype=torch.bool).tril()
        for blk in self.blocks:
            x = blk(x, allowed)
        return self.head(x)


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    s = torch.randint(0, NUM_SYMBOLS, (n, 1), generator=g)
    steps = torch.multinomial(torch.tensor([0.1, 0.2, 0.4, 0.2, 0.1]), n * (SEQ_LEN - 1), True, generator=g)
    return torch.cat([s, s + (steps.view(n, -1) - 2).cumsum(1)], 1) % NUM_SYMBOLS


@torch.no_grad()
def quantized_cdf(model, padded, i):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(padded)[0, i]
    pmf = logits.float().softmax(-1)
    freq = torch.floor(pmf * ((1 << PREC) - NUM_SYMBOLS)).long() + 1
    freq[freq.argmax()] += (1 << PREC) - freq.sum()
    return torch.cat([torch.zeros(1, dtype=torch.long), freq.cumsum(0)]).tolist()


def encode(model, seq):
    padded, pairs = torch.zeros(1, SEQ_LEN, dtype=torch.long), []
    for i, s in enumerate(seq.tolist()):
        cdf = quantized_cdf(model, padded, i)
        pairs.append((cdf[s], cdf[s + 1] - cdf[s]))
        padded[0, i] = s
    x, words = RANS_L, []
    for start, freq in reversed(pairs):
        while x >= ((RANS_L >> PREC) << 32) * freq:
            words.append(x & 0xFFFFFFFF)
            x >>= 32
        x = ((x // freq) << PREC) + (x % freq) + start
    return [x >> 32, x & 0xFFFFFFFF] + words[::-1]


def decode(model, words):
    words = list(words)
    x = (words.pop(0) << 32) | words.pop(0)
    padded = torch.zeros(1, SEQ_LEN, dtype=torch.long)
    for i in range(SEQ_LEN):
        cdf = quantized_cdf(model, padded, i)
        slot = x & ((1 << PREC) - 1)
        s = max(j for j in range(NUM_SYMBOLS) if cdf[j] <= slot)
        x = (cdf[s + 1] - cdf[s]) * (x >> PREC) + slot - cdf[s]
        while x < RANS_L:
            x = (x << 32) | words.pop(0)
        padded[0, i] = s
    return padded[0]


def main():
    torch.manual_seed(0)
    train, test = make_data(512, 0), make_data(2, 1)
    model = ARPrior()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(30):
        batch = train[(step % 16) * 32:(step % 16) * 32 + 32]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(batch)
        loss = F.cross_entropy(logits.float().reshape(-1, NUM_SYMBOLS), batch.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == 29:
            print(f"step {step}: {loss.item() / math.log(2):.3f} bits/symbol")

    model.eval()
    for seq in test:
        words = encode(model, seq)
        ok = torch.equal(decode(model, words), seq)
        print(f"coded {SEQ_LEN} symbols in {len(words) * 32} bits ({len(words) * 32 / SEQ_LEN:.2f} b/sym), lossless={ok}")


if __name__ == "__main__":
    main()
