import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, CTX = 100, 64, 4, 2, 64


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, HEADS, C // HEADS).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = CausalSelfAttention()
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(approximate="tanh"), nn.Linear(4 * D, D))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, D), nn.Embedding(CTX, D)
        self.h = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx):
        pos = torch.arange(idx.size(1), device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for blk in self.h:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


def train(model, steps=150):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    base = torch.arange(VOCAB).repeat(8)
    for step in range(steps):
        starts = torch.randint(0, len(base) - CTX - 1, (16,))
        batch = torch.stack([base[s : s + CTX + 1] for s in starts])
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


def sample_next(logits, generated, temperature=1.0, top_k=0, top_p=1.0, rep_penalty=1.0):
    if rep_penalty != 1.0:
        prev = logits.gather(1, generated)
        prev = torch.where(prev > 0, prev / rep_penalty, prev * rep_penalty)
        logits = logits.scatter(1, generated, prev)
    logits = logits / max(temperature, 1e-5)
    if top_k > 0:
        kth = torch.topk(logits, top_k).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, order = torch.sort(logits, descending=True)
        cum = sorted_logits.softmax(-1).cumsum(-1)
        drop = cum - sorted_logits.softmax(-1) > top_p
        logits = logits.masked_fill(drop.scatter(1, order, drop), float("-inf"))
    probs = F.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1)


@torch.no_grad()
def generate(model, prompt, n_new, **kw):
    idx = prompt
    for _ in range(n_new):
        logits = model(idx[:, -CTX:])[:, -1, :]
        idx = torch.cat([idx, sample_next(logits, idx, **kw)], dim=1)
    return idx


model = GPT()
print(f"final train loss {train(model):.3f}")
model = model.half().eval()
prompt = torch.tensor([[5, 6, 7, 8], [40, 41, 42, 43]])

settings = [dict(temperature=0.9, top_k=40, top_p=0.95, rep_penalty=1.1),
            dict(temperature=0.7, top_p=0.9),
            dict(temperature=0.0, top_k=1)]
for kw in settings:
    out = generate(model, prompt, 24, **kw)
    logp = F.log_softmax(model(out[:, :-1]).float(), -1).gather(-1, out[:, 1:, None])[:, 3:]
    print(kw, "ppl of sample", round(math.exp(-logp.mean().item()), 3), out[0, 4:16].tolist())
