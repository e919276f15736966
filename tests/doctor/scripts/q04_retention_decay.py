import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)
VOCAB, D, HEADS, SEQ = 48, 64, 4, 64


class MultiScaleRetention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.gate = nn.Linear(d, d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.group_norm = nn.GroupNorm(heads, d)
        gammas = 1.0 - 2.0 ** (-5.0 - np.arange(heads))
        self.register_buffer("gammas", torch.from_numpy(gammas))

    def decay_mask(self, L):
        n = torch.arange(L, device=self.gammas.device)
        dist = (n[:, None] - n[None, :]).clamp(min=0)
        mask = self.gammas[:, None, None] ** dist
        mask = mask.masked_fill(n[:, None] < n[None, :], 0.0)
        return mask / mask.sum(-1, keepdim=True).sqrt()

    def forward(self, x):
        b, L, d = x.shape
        q, k, v = self.qkv(x).view(b, L, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        k = k * self.dh ** -0.5
        ret = (q @ k.transpose(-1, -2)) * self.decay_mask(L)
        ret = ret / ret.sum(-1, keepdim=True).abs().clamp(min=1.0)
        o = (ret @ v).transpose(1, 2).reshape(b * L, d)
        o = self.group_norm(o).view(b, L, d)
        return self.out(F.silu(self.gate(x)) * o)


class RetNetLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.msr = MultiScaleRetention(d, heads)
        self.ffn = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.msr(self.ln1(x))
        return x + self.ffn(self.ln2(x))


class RetNetLM(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList([RetNetLayer(D, HEADS) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        self.lm_head.weight = self.emb.weight

    def forward(self, ids):
        x = self.emb(ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.ln_f(x))


def make_corpus(n_tokens=200_000):
    # order-2 markov chain with a sparse transition table
    table = np.random.randint(0, VOCAB, size=(VOCAB, VOCAB, 3))
    out = np.zeros(n_tokens, dtype=np.int64)
    out[:2] = np.random.randint(0, VOCAB, 2)
    choice = np.random.randint(0, 3, n_tokens)
    for i in range(2, n_tokens):
        out[i] = table[out[i - 2], out[i - 1], choice[i]]
    return torch.from_numpy(out)


corpus = make_corpus()


def get_batch(bs):
    starts = torch.randint(0, len(corpus) - SEQ - 1, (bs,))
    x = torch.stack([corpus[s:s + SEQ] for s in starts])
    y = torch.stack([corpus[s + 1:s + SEQ + 1] for s in starts])
    return x, y


model = RetNetLM()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), weight_decay=0.05)
for step in range(200):
    x, y = get_batch(32)
    logits = model(x)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 40 == 0:
        print(f"step {step:3d} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    x, y = get_batch(128)
    val = F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1)).item()
print(f"val loss {val:.4f}  (entropy floor {np.log(3):.4f})")
