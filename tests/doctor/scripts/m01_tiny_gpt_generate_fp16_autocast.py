"""Train a tiny hand-written GPT on a synthetic copy task with bf16 autocast, then
sample from it.  The sampling helper was copied from the serving code, which runs
under fp16 autocast."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, CTX, D, H, L = 64, 32, 64, 4, 2
TRAIN_DTYPE = torch.bfloat16
SERVE_DTYPE = torch.float16


class CausalSelfAttention(nn.Module):
    def __init__(self, d, h, ctx):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.register_buffer("mask", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        q = q.view(B, T, self.h, C // self.h).transpose(1, 2)
        k = k.view(B, T, self.h, C // self.h).transpose(1, 2)
        v = v.view(B, T, self.h, C // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = att.masked_fill(~self.mask[:T, :T], -1e9)
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.attn = CausalSelfAttention(D, H, CTX)
        self.ln2 = nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(CTX, D)
        self.blocks = nn.ModuleList([Block() for _ in range(L)])
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx):
        T = idx.size(1)
        x = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


def make_batch(bs=16):
    half = torch.randint(2, VOCAB, (bs, CTX // 2))
    seq = torch.cat([half, half], dim=1)
    return seq[:, :-1], seq[:, 1:]


@torch.no_grad()
def generate(model, prompt, n_new):
    model.eval()
    idx = prompt
    with torch.autocast(device_type="cpu", dtype=SERVE_DTYPE):
        for _ in range(n_new):
            logits = model(idx[:, -CTX:])[:, -1, :]
            nxt = logits.float().argmax(-1, keepdim=True)
            idx = torch.cat([idx, nxt], dim=1)
    return idx


model = TinyGPT()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
for step in range(60):
    x, y = make_batch()
    with torch.autocast(device_type="cpu", dtype=TRAIN_DTYPE):
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")

prompt, _ = make_batch(2)
out = generate(model, prompt[:, : CTX // 2], 8)
print("sample:", out[0].tolist())
