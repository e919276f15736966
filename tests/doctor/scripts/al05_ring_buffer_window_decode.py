import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, WINDOW, PAD = 300, 96, 4, 3, 16, 0
HD = D // HEADS


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-8):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def rope(x, pos, base=10000.0):
    inv = 1.0 / base ** (torch.arange(0, HD, 2, dtype=torch.float32) / HD)
    ang = pos.float()[:, None, None] * inv
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


class RingBufferCache:
    def __init__(self, batch, dtype):
        self.k = torch.zeros(LAYERS, batch, WINDOW, HEADS, HD, dtype=dtype)
        self.v = torch.zeros_like(self.k)
        self.valid = torch.zeros(batch, WINDOW, dtype=torch.bool)
        self.step = 0

    def write(self, layer, k, v, is_real):
        slot = self.step % WINDOW
        self.k[layer, :, slot], self.v[layer, :, slot] = k, v
        if layer == 0:
            self.valid[:, slot] = is_real


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = RMSNorm(D), RMSNorm(D)
        self.qkv = nn.Linear(D, 3 * D, bias=False)
        self.out = nn.Linear(D, D, bias=False)
        self.up = nn.Linear(D, 2 * 3 * D, bias=False)
        self.down = nn.Linear(3 * D, D, bias=False)

    def forward(self, x, li, cache, pos, is_real):
        q, k, v = self.qkv(self.n1(x)).view(-1, 3, HEADS, HD).unbind(1)
        q, k = rope(q, pos), rope(k, pos)
        cache.write(li, k, v, is_real)
        scores = torch.einsum("bhd,bshd->bhs", q, cache.k[li]) / HD ** 0.5
        scores = scores.masked_fill(~cache.valid[:, None, :], torch.finfo(scores.dtype).min)
        attn = torch.einsum("bhs,bshd->bhd", scores.softmax(-1), cache.v[li])
        x = x + self.out(attn.reshape(-1, D))
        g, u = self.up(self.n2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u)


class WindowLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = RMSNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def step(self, tok, cache, pos):
        is_real = tok != PAD
        x = self.emb(tok)
        for li, blk in enumerate(self.blocks):
            x = blk(x, li, cache, pos, is_real)
        cache.step += 1
        return self.head(self.norm(x))


model = WindowLM().half().eval()
prompts = [torch.randint(1, VOCAB, (n,)) for n in (10, 6, 14, 3)]
width = max(len(p) for p in prompts)
batch = torch.full((len(prompts), width), PAD)
for i, p in enumerate(prompts):
    batch[i, width - len(p):] = p
offsets = torch.tensor([width - len(p) for p in prompts])

cache = RingBufferCache(len(prompts), torch.float16)
generated, total_lp = [], torch.zeros(len(prompts))
with torch.no_grad():
    for t in range(width + 24):
        tok = batch[:, t] if t < width else generated[-1]
        pos = (t - offsets).clamp(min=0)
        logits = model.step(tok, cache, pos)
        logp = F.log_softmax(logits.float(), dim=-1)
        nxt = logp.argmax(-1)
        if t >= width - 1:
            total_lp += logp.gather(-1, nxt[:, None]).squeeze(-1)
            generated.append(nxt)
        if t % 8 == 0:
            print(f"t={t:3d} ring slot {t % WINDOW:2d} mean logprob so far {total_lp.mean().item():.4f}")
print("per-request generated logprob:", [round(v, 3) for v in total_lp.tolist()])
print("avg logprob/token:", (total_lp / len(generated)).mean().item())
