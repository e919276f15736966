import os
import tempfile
import time
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    vocab_size: int = 160
    dim: int = 64
    n_layers: int = 2
    n_heads: int = 4
    max_seq_len: int = 64
    rope_theta: float = 10000.0


def precompute_freqs_cis(dim, end, theta):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
    t = torch.arange(end).float()
    return torch.polar(torch.ones(end, dim // 2), torch.outer(t, freqs))


def apply_rotary_emb(x, freqs_cis):
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    out = torch.view_as_real(xc * freqs_cis[None, :, None, :]).flatten(3)
    return out.type_as(x)


class Attention(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.n_heads, self.head_dim = args.n_heads, args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.dim, bias=False)
        self.wk = nn.Linear(args.dim, args.dim, bias=False)
        self.wv = nn.Linear(args.dim, args.dim, bias=False)
        self.wo = nn.Linear(args.dim, args.dim, bias=False)

    def forward(self, x, freqs_cis):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, self.n_heads, self.head_dim)
        k = self.wk(x).view(B, T, self.n_heads, self.head_dim)
        v = self.wv(x).view(B, T, self.n_heads, self.head_dim)
        q, k = apply_rotary_emb(q, freqs_cis), apply_rotary_emb(k, freqs_cis)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(B, T, -1))


class TransformerBlock(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.attention_norm = nn.RMSNorm(args.dim, eps=1e-5)
        self.attention = Attention(args)
        self.ffn_norm = nn.RMSNorm(args.dim, eps=1e-5)
        self.w1 = nn.Linear(args.dim, 4 * args.dim, bias=False)
        self.w2 = nn.Linear(4 * args.dim, args.dim, bias=False)
        self.w3 = nn.Linear(args.dim, 4 * args.dim, bias=False)

    def forward(self, x, freqs_cis):
        x = x + self.attention(self.attention_norm(x), freqs_cis)
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Transformer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleList(TransformerBlock(args) for _ in range(args.n_layers))
        self.norm = nn.RMSNorm(args.dim, eps=1e-5)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)
        self.register_buffer(
            "freqs_cis", precompute_freqs_cis(args.dim // args.n_heads, args.max_seq_len, args.rope_theta), persistent=False
        )

    def forward(self, tokens):
        T = tokens.size(1)
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h, self.freqs_cis[:T])
        return self.output(self.norm(h))


def batch(args, bs=16, T=48):
    start = torch.randint(0, args.vocab_size, (bs, 1))
    seq = (start + 2 * torch.arange(T + 1)) % args.vocab_size
    return seq[:, :-1], seq[:, 1:]


torch.manual_seed(0)
args = ModelArgs()
ckpt_dir = tempfile.mkdtemp()
ckpt_path = os.path.join(ckpt_dir, "consolidated.00.pth")

trainer = Transformer(args)
opt = torch.optim.AdamW(trainer.parameters(), lr=3e-3)
for _ in range(40):
    x, y = batch(args)
    loss = F.cross_entropy(trainer(x).view(-1, args.vocab_size), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"trained loss {loss.item():.4f}")
torch.save({k: v.to(torch.bfloat16) for k, v in trainer.state_dict().items()}, ckpt_path)
del trainer, opt

t0 = time.perf_counter()
with torch.device("meta"):
    model = Transformer(args)
state_dict = torch.load(ckpt_path, mmap=True, weights_only=True)
model.load_state_dict(state_dict, strict=True, assign=True)
model.eval()
print(f"loaded {len(state_dict)} tensors in {time.perf_counter() - t0:.3f}s")

x, y = batch(args, bs=32)
with torch.no_grad():
    logits = model(x)
print(f"eval loss after reload {F.cross_entropy(logits.float().view(-1, args.vocab_size), y.reshape(-1)).item():.4f}")
