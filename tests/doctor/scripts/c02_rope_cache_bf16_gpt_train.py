"""Hand-written GPT with rotary position embeddings, trained in pure bf16.

The cos/sin tables are computed once in __init__ and kept on the attention module.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, MAX_LEN = 512, 64, 4, 2, 64


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class RotaryAttention(nn.Module):
    def __init__(self, d, heads, max_len, base=10000.0):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)
        inv_freq = 1.0 / (base ** (torch.arange(0, self.hd, 2).float() / self.hd))
        t = torch.arange(max_len).float()
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        # cache once, reused for every forward
        self.cos_cached = emb.cos()[None, None]
        self.sin_cached = emb.sin()[None, None]

    def forward(self, x):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.heads, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.heads, self.hd).transpose(1, 2)
        cos, sin = self.cos_cached[:, :, :T], self.sin_cached[:, :, :T]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, -1))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        var = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(var + self.eps)).to(x.dtype) * self.weight


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(D)
        self.attn = RotaryAttention(D, HEADS, MAX_LEN)
        self.norm2 = RMSNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D, bias=False), nn.SiLU(), nn.Linear(4 * D, D, bias=False))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class RoPEGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.norm = RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


data = torch.randint(0, VOCAB, (64, 33))
model = RoPEGPT().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

for epoch in range(2):
    for i in range(0, len(data), 8):
        batch = data[i:i + 8]
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
