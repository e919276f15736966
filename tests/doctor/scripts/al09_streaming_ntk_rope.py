import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, WINDOW = 256, 128, 4, 2, 32
HD = D // HEADS


class NTKRotary(nn.Module):
    def __init__(self, dim, base=10000.0, train_ctx=4096, target_ctx=131072):
        super().__init__()
        alpha = target_ctx / train_ctx
        base = base * alpha ** (dim / (dim - 2))
        self.register_buffer("inv_freq", 1.0 / base ** (torch.arange(0, dim, 2).float() / dim), persistent=False)

    def forward(self, x, positions):
        ang = positions.to(x.dtype)[:, None] * self.inv_freq.to(x.dtype)[None, :]
        cos, sin = torch.cos(ang), torch.sin(ang)
        cos = torch.cat([cos, cos], dim=-1)[None, :, None]
        sin = torch.cat([sin, sin], dim=-1)[None, :, None]
        x1, x2 = x.chunk(2, dim=-1)
        return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.RMSNorm(D, eps=1e-5), nn.RMSNorm(D, eps=1e-5)
        self.q, self.k, self.v, self.o = (nn.Linear(D, D, bias=False) for _ in range(4))
        self.rotary = NTKRotary(HD)
        self.ff = nn.Sequential(nn.Linear(D, 4 * D, bias=False), nn.SiLU(), nn.Linear(4 * D, D, bias=False))

    def forward(self, x, positions, cache):
        b, t, _ = x.shape
        h = self.ln1(x)
        q = self.rotary(self.q(h).view(b, t, HEADS, HD), positions)
        k = self.rotary(self.k(h).view(b, t, HEADS, HD), positions)
        v = self.v(h).view(b, t, HEADS, HD)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=1)[:, -WINDOW:]
            v = torch.cat([cache[1], v], dim=1)[:, -WINDOW:]
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                           is_causal=cache is None)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, D))
        return x + self.ff(self.ln2(x)), (k, v)


class StreamingLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(D, eps=1e-5)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids, positions, caches=None):
        x = self.emb(ids)
        new = []
        for i, blk in enumerate(self.blocks):
            x, kv = blk(x, positions, None if caches is None else caches[i])
            new.append(kv)
        return self.head(self.norm(x)), new


class Session:
    """A long-lived chat session: only the last WINDOW tokens are kept, positions keep counting."""

    def __init__(self, model, start_pos):
        self.model, self.pos, self.caches = model, start_pos, None

    @torch.no_grad()
    def feed(self, ids):
        positions = torch.arange(self.pos, self.pos + ids.shape[1])
        logits, self.caches = self.model(ids, positions, self.caches)
        self.pos += ids.shape[1]
        return logits[:, -1]


model = StreamingLM().half().eval()
session = Session(model, start_pos=65_280)
prompt = torch.randint(0, VOCAB, (1, WINDOW))
logits = session.feed(prompt)

for turn in range(4):
    total_lp, n = 0.0, 0
    for _ in range(64):
        logp = F.log_softmax(logits.float() / 0.9, dim=-1)
        tok = logp.argmax(-1, keepdim=True)
        total_lp += logp.gather(-1, tok).item()
        n += 1
        logits = session.feed(tok)
    print(f"turn {turn}: position {session.pos}, mean token logprob {total_lp / n:.4f}")
