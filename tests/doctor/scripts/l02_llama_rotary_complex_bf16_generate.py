"""Tiny LLaMA-style decoder (rotary embeddings written with complex numbers).

Train a few steps in fp32 on a toy character corpus, then cast the model to bfloat16
for faster sampling and generate a continuation.
"""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

TEXT = ("the quick brown fox jumps over the lazy dog. " * 40 +
        "pack my box with five dozen liquor jugs. " * 40)
chars = sorted(set(TEXT))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in TEXT], dtype=torch.long)

DIM, N_LAYERS, N_HEADS, MAX_SEQ = 64, 2, 4, 64


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = freqs_cis[None, :, None, :]
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.n_heads = N_HEADS
        self.head_dim = DIM // N_HEADS
        self.wq = nn.Linear(DIM, DIM, bias=False)
        self.wk = nn.Linear(DIM, DIM, bias=False)
        self.wv = nn.Linear(DIM, DIM, bias=False)
        self.wo = nn.Linear(DIM, DIM, bias=False)

    def forward(self, x, freqs_cis):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.n_heads, self.head_dim)
        k = self.wk(x).view(b, t, self.n_heads, self.head_dim)
        v = self.wv(x).view(b, t, self.n_heads, self.head_dim)
        q, k = apply_rotary_emb(q, k, freqs_cis)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(out.transpose(1, 2).reshape(b, t, DIM))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        hidden = 4 * DIM
        self.w1 = nn.Linear(DIM, hidden, bias=False)
        self.w2 = nn.Linear(hidden, DIM, bias=False)
        self.w3 = nn.Linear(DIM, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = Attention()
        self.feed_forward = FeedForward()
        self.attention_norm = RMSNorm(DIM)
        self.ffn_norm = RMSNorm(DIM)

    def forward(self, x, freqs_cis):
        h = x + self.attention(self.attention_norm(x), freqs_cis)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, DIM)
        self.layers = nn.ModuleList([Block() for _ in range(N_LAYERS)])
        self.norm = RMSNorm(DIM)
        self.output = nn.Linear(DIM, vocab, bias=False)
        self.freqs_cis = precompute_freqs_cis(DIM // N_HEADS, MAX_SEQ * 2)

    def forward(self, tokens):
        t = tokens.shape[1]
        h = self.tok_embeddings(tokens)
        freqs_cis = self.freqs_cis[:t]
        for layer in self.layers:
            h = layer(h, freqs_cis)
        return self.output(self.norm(h))


@torch.no_grad()
def generate(model, prompt, max_new_tokens=40, temperature=0.8):
    idx = torch.tensor([[stoi[c] for c in prompt]], dtype=torch.long)
    for _ in range(max_new_tokens):
        logits = model(idx[:, -MAX_SEQ:])[:, -1, :].float()
        probs = F.softmax(logits / temperature, dim=-1)
        nxt = torch.multinomial(probs, 1)
        idx = torch.cat([idx, nxt], dim=1)
    return "".join(itos[i] for i in idx[0].tolist())


def main():
    t0 = time.time()
    model = Transformer(len(chars))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(60):
        ix = torch.randint(0, len(data) - MAX_SEQ - 1, (16,))
        x = torch.stack([data[i:i + MAX_SEQ] for i in ix])
        y = torch.stack([data[i + 1:i + MAX_SEQ + 1] for i in ix])
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"step {step}  loss {loss.item():.3f}")

    # inference in bf16
    model = model.to(torch.bfloat16).eval()
    print(generate(model, "the quick "))
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
