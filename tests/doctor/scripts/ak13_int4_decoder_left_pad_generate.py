import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, PAD, BOS = 64, 0, 1


class Int4Linear(nn.Linear):
    def forward(self, x):
        scale = self.weight.abs().amax(dim=1, keepdim=True).clamp(min=1e-4) / 7
        w_q = (self.weight / scale).round().clamp(-8, 7) * scale
        return F.linear(x, self.weight + (w_q - self.weight).detach(), self.bias)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = Int4Linear(dim, 3 * dim)
        self.proj = Int4Linear(dim, dim)

    def forward(self, x, allowed):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // self.heads)
        bias = (1.0 - allowed.to(scores.dtype)) * -1e9
        attn = torch.softmax(scores + bias[:, None], dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, T, D))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.mlp = nn.Sequential(Int4Linear(dim, 4 * dim), nn.GELU(), Int4Linear(4 * dim, dim))

    def forward(self, x, allowed):
        x = x + self.attn(self.ln1(x), allowed)
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, dim=64, heads=4, depth=2, max_len=48):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, VOCAB, bias=False)

    def forward(self, ids, pad_mask):
        B, T = ids.shape
        pos = (pad_mask.long().cumsum(-1) - 1).clamp(min=0)
        x = self.tok(ids) + self.pos(pos)
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
        allowed = causal[None] & pad_mask[:, None, :]
        for blk in self.blocks:
            x = blk(x, allowed)
        return self.head(self.ln_f(x))


def arithmetic_sequences(n, length=24):
    start = torch.randint(2, VOCAB, (n, 1))
    step = torch.randint(1, 5, (n, 1))
    body = 2 + (start - 2 + step * torch.arange(length)) % (VOCAB - 2)
    return torch.cat([torch.full((n, 1), BOS), body], 1)


model = TinyLM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
for step in range(150):
    seq = arithmetic_sequences(32)
    logits = model(seq[:, :-1], torch.ones_like(seq[:, :-1], dtype=torch.bool))
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), seq[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"train step {step:3d} loss {loss.item():.4f}")


@torch.no_grad()
def generate(model, prompts, new_tokens=8):
    T = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), T), PAD)
    mask = torch.zeros(len(prompts), T, dtype=torch.bool)
    for i, p in enumerate(prompts):
        ids[i, T - len(p):] = p
        mask[i, T - len(p):] = True
    logprob = torch.zeros(len(prompts))
    for _ in range(new_tokens):
        logits = model(ids, mask)[:, -1].float()
        nxt = logits.argmax(-1)
        logprob += logits.log_softmax(-1).gather(1, nxt[:, None]).squeeze(1)
        ids = torch.cat([ids, nxt[:, None]], 1)
        mask = torch.cat([mask, torch.ones(len(prompts), 1, dtype=torch.bool)], 1)
    return ids, logprob / new_tokens


model = model.half().eval()
seqs = arithmetic_sequences(4)
prompts = [seqs[i, : 4 + 3 * i] for i in range(4)]
out, avg_lp = generate(model, prompts)
for i in range(4):
    print(f"prompt {prompts[i].tolist()} -> {out[i, -8:].tolist()} avg logprob {avg_lp[i].item():.3f}")
print(f"mean avg logprob {avg_lp.mean().item():.4f}")
