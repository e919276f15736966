import math
from collections import Counter
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
PAD, BOS, EOS, V = 0, 1, 2, 64


class MultiHeadAttention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h, self.dh = h, d // h
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, mem, key_pad=None, causal=False):
        B, T, D = x.shape
        S = mem.shape[1]
        q = self.q(x).view(B, T, self.h, self.dh).transpose(1, 2)
        k = self.k(mem).view(B, S, self.h, self.dh).transpose(1, 2)
        v = self.v(mem).view(B, S, self.h, self.dh).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.dh)
        if key_pad is not None:
            scores = scores.masked_fill(key_pad[:, None, None, :], -1e9)
        if causal:
            scores = scores.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), -1e9)
        return self.o((scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D))


class Layer(nn.Module):
    def __init__(self, d, h, cross):
        super().__init__()
        self.self_attn = MultiHeadAttention(d, h)
        self.cross_attn = MultiHeadAttention(d, h) if cross else None
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.ReLU(), nn.Linear(2 * d, d))
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(3))

    def forward(self, x, src_pad, mem=None, causal=False):
        x = self.norms[0](x + self.self_attn(x, x, None if causal else src_pad, causal))
        if self.cross_attn is not None:
            x = self.norms[1](x + self.cross_attn(x, mem, src_pad))
        return self.norms[2](x + self.ff(x))


class Seq2Seq(nn.Module):
    def __init__(self, d=64, h=4, n=2, max_len=64):
        super().__init__()
        self.emb = nn.Embedding(V, d, padding_idx=PAD)
        self.pos = nn.Embedding(max_len, d)
        self.encoder = nn.ModuleList(Layer(d, h, False) for _ in range(n))
        self.decoder = nn.ModuleList(Layer(d, h, True) for _ in range(n))
        self.out = nn.Linear(d, V)

    def embed(self, ids):
        return self.emb(ids) + self.pos(torch.arange(ids.shape[1]))

    def encode(self, src):
        src_pad = src.eq(PAD)
        x = self.embed(src)
        for layer in self.encoder:
            x = layer(x, src_pad)
        return x, src_pad

    def decode(self, tgt, mem, src_pad):
        y = self.embed(tgt)
        for layer in self.decoder:
            y = layer(y, src_pad, mem, causal=True)
        return self.out(y)


@torch.no_grad()
def beam_search(model, src, beam=4, max_len=20, alpha=0.6):
    mem, src_pad = model.encode(src)
    mem, src_pad = mem.repeat(beam, 1, 1), src_pad.repeat(beam, 1)
    seqs = torch.full((beam, 1), BOS)
    scores = torch.zeros(beam)
    scores[1:] = float("-inf")
    finished = []
    for _ in range(max_len):
        logp = model.decode(seqs, mem, src_pad)[:, -1].float().log_softmax(-1)
        cand = (scores[:, None] + logp).view(-1)
        top, idx = cand.topk(beam)
        seqs = torch.cat([seqs[idx // V], (idx % V)[:, None]], dim=1)
        scores = top
        for b in range(beam):
            if seqs[b, -1] == EOS:
                finished.append((scores[b].item() / len(seqs[b]) ** alpha, seqs[b].tolist()))
                scores[b] = float("-inf")
        if len(finished) >= beam:
            break
    if not finished:
        finished = [(scores[0].item(), seqs[0].tolist())]
    return max(finished)[1]


def bleu_like(hyp, ref, n_max=4):
    precisions = []
    for n in range(1, n_max + 1):
        h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        precisions.append((sum((h & r).values()) + 1) / (sum(h.values()) + 1))
    bp = min(1.0, math.exp(1 - len(ref) / max(len(hyp), 1)))
    return bp * math.exp(sum(math.log(p) for p in precisions) / n_max)


lengths = torch.randint(6, 14, (12,))
src_batch = torch.full((12, 14), PAD)
for i, L in enumerate(lengths):
    src_batch[i, :L] = torch.randint(3, V, (L,))
refs = [[3 + (t - 3 + 5) % (V - 3) for t in s[s != PAD].tolist()] for s in src_batch]

model = Seq2Seq().eval().half()
total = 0.0
for i in range(len(src_batch)):
    hyp = beam_search(model, src_batch[i:i + 1])
    hyp = [t for t in hyp if t not in (BOS, EOS, PAD)]
    total += bleu_like(hyp, refs[i])
print(f"corpus BLEU-like: {100 * total / len(src_batch):.2f}")
