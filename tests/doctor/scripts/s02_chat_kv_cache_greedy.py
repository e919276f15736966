import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class KVCache:
    def __init__(self, n_layers, batch, n_heads, max_len, head_dim):
        self.k = [torch.zeros(batch, n_heads, max_len, head_dim) for _ in range(n_layers)]
        self.v = [torch.zeros(batch, n_heads, max_len, head_dim) for _ in range(n_layers)]
        self.len = 0

    def update(self, layer, k, v, pos):
        T = k.shape[2]
        self.k[layer][:, :, pos:pos + T] = k
        self.v[layer][:, :, pos:pos + T] = v
        return self.k[layer][:, :, :pos + T], self.v[layer][:, :, :pos + T]


class Block(nn.Module):
    def __init__(self, d, n_heads, idx):
        super().__init__()
        self.idx, self.h, self.dh = idx, n_heads, d // n_heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, cache, pos):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=-1)
        q, k, v = (t.view(B, T, self.h, self.dh).transpose(1, 2) for t in (q, k, v))
        k, v = cache.update(self.idx, k, v, pos)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.dh)
        if T > 1:
            causal = torch.ones(T, k.shape[2], dtype=torch.bool).tril(diagonal=pos)
            att = att.masked_fill(~causal, torch.finfo(att.dtype).min)
        y = F.softmax(att, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.ln2(x))


class ChatLM(nn.Module):
    def __init__(self, vocab=512, d=128, n_layers=4, n_heads=4, max_len=256):
        super().__init__()
        self.cfg = dict(n_layers=n_layers, n_heads=n_heads, head_dim=d // n_heads, max_len=max_len)
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList(Block(d, n_heads, i) for i in range(n_layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, ids, cache, pos):
        T = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(pos, pos + T))
        for blk in self.blocks:
            x = blk(x, cache, pos)
        return self.lm_head(self.ln_f(x))


@torch.inference_mode()
def greedy_generate(model, prompt, max_new_tokens, eos_id):
    c = model.cfg
    cache = KVCache(c["n_layers"], prompt.shape[0], c["n_heads"], c["max_len"], c["head_dim"])
    logits = model(prompt, cache, 0)
    pos = prompt.shape[1]
    out = [prompt]
    next_tok = logits[:, -1].argmax(-1, keepdim=True)
    for _ in range(max_new_tokens):
        out.append(next_tok)
        if (next_tok == eos_id).all():
            break
        logits = model(next_tok, cache, pos)
        pos += 1
        next_tok = logits[:, -1].argmax(-1, keepdim=True)
    return torch.cat(out, dim=1)


model = ChatLM().eval()
model.to(torch.bfloat16)

prompts = torch.randint(3, 512, (4, 24))
t0 = time.time()
seqs = greedy_generate(model, prompts, max_new_tokens=48, eos_id=2)
dt = time.time() - t0
new = seqs.shape[1] - prompts.shape[1]
print(f"generated {new} tokens x {seqs.shape[0]} in {dt:.2f}s ({new * seqs.shape[0] / dt:.1f} tok/s)")
print("sample:", seqs[0, -16:].tolist())
