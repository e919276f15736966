import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, SEQ = 96, 64, 4, 2, 32
STEPS, WARMUP, LR = 60, 10, 3e-3


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(D), nn.RMSNorm(D)
        self.attn = nn.Linear(D, 3 * D, bias=False)
        self.attn_out = nn.Linear(D, D, bias=False)
        self.mlp_in = nn.Linear(D, 4 * D, bias=False)
        self.mlp_out = nn.Linear(4 * D, D, bias=False)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.attn(self.norm1(x)).view(B, T, 3, HEADS, -1).unbind(2)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.attn_out(y.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp_out(F.relu(self.mlp_in(self.norm2(x))).square())


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(SEQ, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx, targets=None):
        x = self.embed(idx) + self.pos(torch.arange(idx.size(1)))
        for b in self.blocks:
            x = b(x)
        logits = self.lm_head(self.norm(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.float().view(-1, VOCAB), targets.reshape(-1))


class EMA:
    def __init__(self, model, decay=0.995):
        self.decay = decay
        self.shadow = copy.deepcopy(model).eval().requires_grad_(False).to(torch.bfloat16)
        self.updates = 0

    @torch.no_grad()
    def update(self, model):
        self.updates += 1
        d = min(self.decay, (1 + self.updates) / (10 + self.updates))
        ema_p = [p for p in self.shadow.parameters()]
        cur_p = [p.detach() for p in model.parameters()]
        torch._foreach_lerp_(ema_p, cur_p, 1.0 - d)


def lr_at(step):
    if step < WARMUP:
        return LR * (step + 1) / WARMUP
    t = (step - WARMUP) / max(1, STEPS - WARMUP)
    return LR * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def batch(bs=16):
    base = torch.randint(0, VOCAB, (bs, 1))
    seq = (base * torch.arange(1, SEQ + 2)) % VOCAB
    return seq[:, :-1], seq[:, 1:]


model = GPT()
ema = EMA(model)
opt = torch.optim.AdamW(model.parameters(), lr=LR, betas=(0.9, 0.95), weight_decay=0.1)
for step in range(STEPS):
    for group in opt.param_groups:
        group["lr"] = lr_at(step)
    x, y = batch()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    ema.update(model)
    if step % 20 == 0:
        print(f"step {step} lr {lr_at(step):.2e} loss {loss.item():.4f}")

x, y = batch(64)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    print(f"eval loss raw {model(x, y).item():.4f} ema {ema.shadow(x, y).item():.4f}")
