"""Character-level GPT-style LM with tied input/output embeddings.
Trains, saves with safetensors.save_model, reloads into an empty (meta) model for sampling."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import init_empty_weights
from safetensors.torch import load_file, save_model

torch.manual_seed(0)

TEXT = (
    "the quick brown fox jumps over the lazy dog. "
    "pack my box with five dozen liquor jugs. "
    "how vexingly quick daft zebras jump. "
) * 20
VOCAB = sorted(set(TEXT))
STOI = {c: i for i, c in enumerate(VOCAB)}
DATA = torch.tensor([STOI[c] for c in TEXT])
BLOCK = 32


class CausalSelfAttention(nn.Module):
    def __init__(self, d, nhead):
        super().__init__()
        self.nhead = nhead
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.nhead, C // self.nhead).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, d, nhead):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, nhead)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class CharGPT(nn.Module):
    def __init__(self, vocab, d=64, nhead=4, layers=2):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, d)
        self.pos_embeddings = nn.Embedding(BLOCK, d)
        self.blocks = nn.ModuleList([Block(d, nhead) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.tok_embeddings.weight  # weight tying
        nn.init.normal_(self.tok_embeddings.weight, std=0.02)
        nn.init.normal_(self.pos_embeddings.weight, std=0.02)

    def forward(self, idx):
        T = idx.shape[1]
        pos = torch.arange(T, device=idx.device)
        x = self.tok_embeddings(idx) + self.pos_embeddings(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


def get_batch(bs=16):
    ix = torch.randint(0, len(DATA) - BLOCK - 1, (bs,))
    x = torch.stack([DATA[i : i + BLOCK] for i in ix])
    y = torch.stack([DATA[i + 1 : i + BLOCK + 1] for i in ix])
    return x, y


@torch.no_grad()
def sample(model, prompt, n=40):
    idx = torch.tensor([[STOI[c] for c in prompt]])
    for _ in range(n):
        logits = model(idx[:, -BLOCK:])[:, -1]
        nxt = torch.multinomial(F.softmax(logits / 0.8, -1), 1)
        idx = torch.cat([idx, nxt], 1)
    return "".join(VOCAB[i] for i in idx[0].tolist())


def main():
    model = CharGPT(len(VOCAB))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(60):
        x, y = get_batch()
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"step {step} loss {loss.item():.3f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chargpt.safetensors")
        save_model(model, path)  # handles the shared (tied) tensor

        with init_empty_weights():
            served = CharGPT(len(VOCAB))
        missing, unexpected = served.load_state_dict(load_file(path), strict=False, assign=True)
        print("missing keys:", missing)
        served.eval()
        print(repr(sample(served, "the quick ")))


if __name__ == "__main__":
    main()
