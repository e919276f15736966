from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    vocab: int = 128
    dim: int = 64
    n_layer: int = 2
    n_head: int = 4
    max_seq: int = 64
    rope_base: float = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


def rope_cache(cfg):
    hd = cfg.dim // cfg.n_head
    inv = 1.0 / cfg.rope_base ** (torch.arange(0, hd, 2).float() / hd)
    ang = torch.outer(torch.arange(cfg.max_seq).float(), inv)
    return torch.stack([ang.cos(), ang.sin()], -1)


def apply_rope(x, freqs):
    xs = x.float().reshape(*x.shape[:-1], -1, 2)
    f = freqs.view(1, 1, xs.size(2), xs.size(3), 2)
    out = torch.stack([xs[..., 0] * f[..., 0] - xs[..., 1] * f[..., 1],
                       xs[..., 1] * f[..., 0] + xs[..., 0] * f[..., 1]], -1)
    return out.flatten(3).type_as(x)


class KVCache(nn.Module):
    def __init__(self, batch, n_head, max_seq, head_dim):
        super().__init__()
        self.register_buffer("k_cache", torch.zeros(batch, n_head, max_seq, head_dim))
        self.register_buffer("v_cache", torch.zeros(batch, n_head, max_seq, head_dim))

    def update(self, input_pos, k, v):
        self.k_cache.index_copy_(2, input_pos, k)
        self.v_cache.index_copy_(2, input_pos, v)
        return self.k_cache, self.v_cache


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_head, self.hd = cfg.n_head, cfg.dim // cfg.n_head
        self.wqkv = nn.Linear(cfg.dim, 3 * cfg.dim, bias=False)
        self.wo = nn.Linear(cfg.dim, cfg.dim, bias=False)
        self.kv_cache = None

    def forward(self, x, freqs, mask, input_pos):
        B, T, C = x.shape
        q, k, v = self.wqkv(x).split(C, dim=-1)
        q, k, v = (t.view(B, T, self.n_head, self.hd).transpose(1, 2) for t in (q, k, v))
        q, k = apply_rope(q, freqs), apply_rope(k, freqs)
        if self.kv_cache is not None:
            k, v = self.kv_cache.update(input_pos, k, v)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.wo(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attention_norm, self.ffn_norm = RMSNorm(cfg.dim), RMSNorm(cfg.dim)
        self.attention = Attention(cfg)
        self.w1 = nn.Linear(cfg.dim, 3 * cfg.dim, bias=False)
        self.w3 = nn.Linear(cfg.dim, 3 * cfg.dim, bias=False)
        self.w2 = nn.Linear(3 * cfg.dim, cfg.dim, bias=False)

    def forward(self, x, freqs, mask, input_pos):
        x = x + self.attention(self.attention_norm(x), freqs, mask, input_pos)
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Transformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.tok_embeddings = nn.Embedding(cfg.vocab, cfg.dim)
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.norm = RMSNorm(cfg.dim)
        self.output = nn.Linear(cfg.dim, cfg.vocab, bias=False)
        self.register_buffer("freqs_cis", rope_cache(cfg), persistent=False)
        self.register_buffer("causal_mask", torch.tril(torch.ones(cfg.max_seq, cfg.max_seq, dtype=torch.bool)), persistent=False)

    def setup_caches(self, batch):
        hd = self.cfg.dim // self.cfg.n_head
        for layer in self.layers:
            layer.attention.kv_cache = KVCache(batch, self.cfg.n_head, self.cfg.max_seq, hd)

    def forward(self, idx, input_pos):
        mask = self.causal_mask[None, None, input_pos]
        freqs = self.freqs_cis[input_pos]
        x = self.tok_embeddings(idx)
        for layer in self.layers:
            x = layer(x, freqs, mask, input_pos)
        return self.output(self.norm(x))


@torch.no_grad()
def generate(model, prompt, max_new_tokens, top_k=20, temperature=0.8):
    B, T = prompt.shape
    model.setup_caches(B)
    out = torch.empty(B, T + max_new_tokens, dtype=torch.long)
    out[:, :T] = prompt
    logits = model(prompt, torch.arange(T))[:, -1]
    for i in range(max_new_tokens):
        logits = logits.float() / temperature
        v, _ = torch.topk(logits, top_k)
        logits[logits < v[:, [-1]]] = -float("inf")
        nxt = torch.multinomial(F.softmax(logits, -1), 1)
        out[:, T + i] = nxt[:, 0]
        logits = model(nxt, torch.tensor([T + i]))[:, -1]
    return out


torch.manual_seed(0)
model = Transformer(Config()).to(torch.bfloat16).eval()
prompt = torch.randint(0, 128, (4, 8))
tokens = generate(model, prompt, max_new_tokens=32)
print("generated shape", tuple(tokens.shape))
print(tokens[0].tolist())
