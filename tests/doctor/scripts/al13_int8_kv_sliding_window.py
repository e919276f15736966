import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, WINDOW = 500, 128, 4, 2, 24
HD = D // HEADS


class Int8KVCache:
    """Per-token, per-head symmetric int8 K/V with fp32 scales."""

    def __init__(self):
        self.k, self.v, self.ks, self.vs = [], [], [], []

    @staticmethod
    def quant(x):
        x = x.float()
        scale = x.abs().amax(-1, keepdim=True).clamp_min(1e-6) / 127.0
        return torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8), scale

    def append(self, k, v):
        qk, sk = self.quant(k)
        qv, sv = self.quant(v)
        self.k.append(qk), self.ks.append(sk), self.v.append(qv), self.vs.append(sv)

    def read(self, dtype):
        k = (torch.cat(self.k, 1).float() * torch.cat(self.ks, 1)).to(dtype)
        v = (torch.cat(self.v, 1).float() * torch.cat(self.vs, 1)).to(dtype)
        return k, v


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D, bias=False)
        self.o = nn.Linear(D, D, bias=False)

    def forward(self, x, cache, q_pos):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, HEADS, HD).unbind(2)
        cache.append(k, v)
        kk, vv = cache.read(q.dtype)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, kk) * HD ** -0.5
        k_pos = torch.arange(kk.shape[1])
        rel = q_pos[:, None] - k_pos[None, :]
        allowed = (rel >= 0) & (rel < WINDOW)
        scores = scores.float().masked_fill(~allowed, torch.finfo(torch.float32).min)
        probs = scores.softmax(-1).to(vv.dtype)
        out = torch.einsum("bhqk,bkhd->bqhd", probs, vv).reshape(b, t, D)
        return self.o(out)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.RMSNorm(D, eps=1e-6), nn.RMSNorm(D, eps=1e-6)
        self.attn = Attn()
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, cache, q_pos):
        x = x + self.attn(self.n1(x), cache, q_pos)
        return x + self.mlp(self.n2(x))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(1024, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(D, eps=1e-6)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids, caches, start):
        q_pos = torch.arange(start, start + ids.shape[1])
        x = self.emb(ids) + self.pos(q_pos)
        for blk, c in zip(self.blocks, caches):
            x = blk(x, c, q_pos)
        return self.head(self.norm(x))


model = LM().eval()
prompt = torch.randint(0, VOCAB, (2, 40))
caches = [Int8KVCache() for _ in range(LAYERS)]
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    logits = model(prompt, caches, 0)
    nll = F.cross_entropy(logits[:, :-1].float().reshape(-1, VOCAB), prompt[:, 1:].reshape(-1))
    print(f"prefill nll {nll.item():.4f}")
    pos, tok, total = prompt.shape[1], logits[:, -1].float().argmax(-1, keepdim=True), torch.zeros(2)
    for step in range(40):
        logits = model(tok, caches, pos)
        logp = F.log_softmax(logits[:, -1].float(), dim=-1)
        tok = torch.multinomial(logp.exp(), 1)
        total += logp.gather(-1, tok).squeeze(-1)
        pos += 1
        if step % 10 == 9:
            kv_bytes = sum(sum(t.numel() for t in c.k + c.v) for c in caches)
            print(f"step {step + 1}: mean logprob {total.mean().item() / (step + 1):.4f}, int8 kv bytes {kv_bytes}")

with torch.no_grad():
    ref = model(prompt, [Int8KVCache() for _ in range(LAYERS)], 0)
    ref_nll = F.cross_entropy(ref[:, :-1].reshape(-1, VOCAB), prompt[:, 1:].reshape(-1))
print(f"fp32 reference nll {ref_nll.item():.4f}")
