"""Tiny decoder-only LM: a few bf16 training steps, then incremental decoding with a
preallocated key/value cache."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, H, L, MAXLEN = 96, 64, 4, 2, 64
DTYPE = torch.bfloat16


class KVCache:
    def __init__(self, batch, n_layers, n_heads, head_dim, max_len):
        shape = (n_layers, batch, n_heads, max_len, head_dim)
        self.k = torch.zeros(shape)
        self.v = torch.zeros(shape)
        self.len = 0

    def update(self, layer, k, v):
        t = k.size(2)
        self.k[layer, :, :, self.len:self.len + t] = k
        self.v[layer, :, :, self.len:self.len + t] = v
        end = self.len + t
        return self.k[layer, :, :, :end], self.v[layer, :, :, :end]


class Attn(nn.Module):
    def __init__(self, idx):
        super().__init__()
        self.idx, self.hd = idx, D // H
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)

    def forward(self, x, cache=None):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, self.hd).permute(2, 0, 3, 1, 4)
        if cache is not None:
            k, v = cache.update(self.idx, k, v)
        s = (q @ k.transpose(-1, -2)) / self.hd ** 0.5
        if t > 1:
            s = s.masked_fill(torch.ones(t, k.size(2), dtype=torch.bool).triu(1 + k.size(2) - t), float("-inf"))
        y = s.softmax(-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, D))


class Block(nn.Module):
    def __init__(self, idx):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = Attn(idx)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, cache=None):
        x = x + self.attn(self.n1(x), cache)
        return x + self.mlp(self.n2(x))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, D), nn.Embedding(MAXLEN, D)
        self.layers = nn.ModuleList([Block(i) for i in range(L)])
        self.lm_head = nn.Linear(D, V, bias=False)

    def forward(self, idx, cache=None, start=0):
        x = self.wte(idx) + self.wpe(torch.arange(start, start + idx.size(1)))
        for blk in self.layers:
            x = blk(x, cache)
        if cache is not None:
            cache.len += idx.size(1)
        return self.lm_head(x)


model = TinyLM().to(DTYPE)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(4):
    seq = torch.randint(0, V, (8, 33))
    logits = model(seq[:, :-1])
    loss = F.cross_entropy(logits.float().reshape(-1, V), seq[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")


@torch.no_grad()
def generate(model, prompt, new_tokens=16):
    model.eval()
    cache = KVCache(prompt.size(0), L, H, D // H, MAXLEN)
    logits = model(prompt, cache, 0)
    out = [prompt]
    nxt = logits[:, -1].argmax(-1, keepdim=True)
    for _ in range(new_tokens):
        out.append(nxt)
        logits = model(nxt, cache, cache.len)
        nxt = logits[:, -1].argmax(-1, keepdim=True)
    return torch.cat(out, 1)


print(generate(model, torch.randint(0, V, (2, 5))))
