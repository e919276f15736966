"""Pure-bf16 hand-written decoder with padding + causal masks built from torch.finfo(dtype).min."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DTYPE = torch.bfloat16


class Attention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)

    def forward(self, x, bias):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, C // self.h).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) * (C // self.h) ** -0.5
        scores = scores + bias  # bias is 0 / finfo.min, same dtype as scores
        probs = F.softmax(scores.float(), dim=-1).to(q.dtype)
        return self.o((probs @ v).transpose(1, 2).reshape(B, T, C))


class Decoder(nn.Module):
    def __init__(self, vocab=200, d=64, h=4, n_layers=2, max_len=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.layers = nn.ModuleList()
        for _ in range(n_layers):
            self.layers.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(d), attn=Attention(d, h),
                ln2=nn.LayerNorm(d), mlp=nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d)))))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def build_bias(self, attn_mask, dtype):
        B, T = attn_mask.shape
        neg = torch.finfo(dtype).min
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        allowed = causal[None, None] & attn_mask[:, None, None, :].bool()
        bias = torch.zeros(B, 1, T, T, dtype=dtype)
        return bias.masked_fill(~allowed, neg)

    def forward(self, ids, attn_mask):
        T = ids.size(1)
        x = self.emb(ids) + self.pos(torch.arange(T))
        bias = self.build_bias(attn_mask, x.dtype)
        for L in self.layers:
            x = x + L["attn"](L["ln1"](x), bias)
            x = x + L["mlp"](L["ln2"](x))
        return self.lm_head(self.ln_f(x))


model = Decoder().to(DTYPE)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(6):
    ids = torch.randint(1, 200, (8, 32))
    attn_mask = torch.ones(8, 32, dtype=torch.long)
    attn_mask[::2, :6] = 0          # left padding on half the batch
    logits = model(ids, attn_mask)
    targets = ids[:, 1:].masked_fill(attn_mask[:, 1:] == 0, -100)
    loss = F.cross_entropy(logits[:, :-1].float().reshape(-1, logits.size(-1)), targets.reshape(-1),
                           ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert torch.isfinite(loss) and torch.isfinite(logits).all()
    print(f"step {step} loss {loss.item():.4f}")
