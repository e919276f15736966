"""Train a tiny GPT with tied input/output embeddings, save it with safetensors, then reload it for
evaluation through a meta-device skeleton (no double allocation) and report perplexity."""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_model

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, CTX = 600, 64, 4, 2, 48


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D)
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)
        self.ln_2 = nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).view(B, T, 3, HEADS, C // HEADS).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(y.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp(self.ln_2(x))


class TiedGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, D)
        self.wpe = nn.Embedding(CTX, D)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight          # weight tying
        nn.init.normal_(self.wte.weight, std=0.02)

    def forward(self, idx):
        pos = torch.arange(idx.size(1), device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for b in self.blocks:
            x = b(x)
        return self.lm_head(self.ln_f(x))


def data(n, g):
    start = torch.randint(0, VOCAB, (n, 1), generator=g)
    return (start + 5 * torch.arange(CTX + 1)) % VOCAB


g = torch.Generator().manual_seed(0)
model = TiedGPT()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for step in range(40):
    x = data(16, g)
    loss = F.cross_entropy(model(x[:, :-1]).reshape(-1, VOCAB), x[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"train loss {loss.item():.3f}")

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.safetensors")
    save_model(model, path)                     # handles the shared (tied) tensor
    del model

    with torch.device("meta"):
        eval_model = TiedGPT()
    result = eval_model.load_state_dict(load_file(path), strict=False, assign=True)
    print("load result:", result)
    eval_model.eval()

    nll, n = 0.0, 0
    with torch.no_grad():
        for _ in range(4):
            x = data(16, g)
            logits = eval_model(x[:, :-1])
            nll += F.cross_entropy(logits.reshape(-1, VOCAB), x[:, 1:].reshape(-1), reduction="sum").item()
            n += x[:, 1:].numel()
    print(f"eval ppl {math.exp(nll / n):.2f}")
