import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, PAD = 512, 128, 4, 2, 0


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D, bias=False)
        self.o = nn.Linear(D, D, bias=False)

    def forward(self, x, bias):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // HEADS)
        probs = torch.softmax(scores + bias, dim=-1)
        return self.o((probs @ v).transpose(1, 2).reshape(b, t, D))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = Attention()
        self.ff = nn.Sequential(nn.Linear(D, 4 * D), nn.SiLU(), nn.Linear(4 * D, D))

    def forward(self, x, bias):
        x = x + self.attn(self.n1(x), bias)
        return x + self.ff(self.n2(x))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(256, D)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids, attn_mask):
        pos = (attn_mask.cumsum(-1) - 1).clamp(min=0)
        x = self.tok(ids) + self.pos(pos)
        bias = build_bias(attn_mask, x.dtype)
        for layer in self.layers:
            x = layer(x, bias)
        return self.head(self.norm(x))


def build_bias(attn_mask, dtype):
    t = attn_mask.shape[1]
    causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
    allowed = causal[None, None] & attn_mask[:, None, None, :].bool()
    return (1.0 - allowed.to(dtype)) * -1e9


class Scheduler:
    """Gathers waiting requests into one left-padded prefill batch."""

    def __init__(self, max_batch=6):
        self.queue, self.max_batch = [], max_batch

    def add(self, req_id, tokens):
        self.queue.append((req_id, tokens))

    def next_batch(self):
        batch, self.queue = self.queue[: self.max_batch], self.queue[self.max_batch:]
        longest = max(len(t) for _, t in batch)
        ids = torch.full((len(batch), longest), PAD, dtype=torch.long)
        mask = torch.zeros(len(batch), longest, dtype=torch.long)
        for i, (_, toks) in enumerate(batch):
            ids[i, longest - len(toks):] = torch.tensor(toks)
            mask[i, longest - len(toks):] = 1
        return [r for r, _ in batch], ids, mask


model = TinyLM().half().eval()
sched = Scheduler()
for r in range(12):
    n = int(torch.randint(5, 40, ()))
    sched.add(f"req-{r}", torch.randint(1, VOCAB, (n,)).tolist())

step = 0
with torch.no_grad():
    while sched.queue:
        req_ids, ids, mask = sched.next_batch()
        logits = model(ids, mask)
        logp = F.log_softmax(logits[:, :-1].float(), dim=-1)
        tok_lp = logp.gather(-1, ids[:, 1:, None]).squeeze(-1)
        valid = (mask[:, :-1] * mask[:, 1:]).float()
        nll = -(tok_lp * valid).sum() / valid.sum()
        step += 1
        print(f"prefill batch {step}: {len(req_ids)} requests, padded len {ids.shape[1]}, prompt nll {nll.item():.4f}")
        next_tok = logits[:, -1].float().argmax(-1)
        for r, t in zip(req_ids, next_tok.tolist()):
            print(f"  {r} -> first token {t}")
