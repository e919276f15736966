import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, SEQ = 128, 64, 4, 2, 32
N_EXP, TOP_K, AUX_W, Z_W = 4, 2, 1e-2, 1e-3
STEPS, ACCUM, WARMUP, MAX_LR = 25, 4, 4, 5e-3


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Linear(D, N_EXP, bias=False)
        self.w_in = nn.Parameter(torch.randn(N_EXP, D, 2 * D) * D**-0.5)
        self.w_out = nn.Parameter(torch.randn(N_EXP, 2 * D, D) * (2 * D) ** -0.5)

    def forward(self, x):
        B, T, C = x.shape
        flat = x.reshape(-1, C)
        logits = self.router(flat).float()
        probs = logits.softmax(-1)
        top_p, top_i = probs.topk(TOP_K, -1)
        top_p = top_p / top_p.sum(-1, keepdim=True)
        out = torch.zeros_like(flat)
        for e in range(N_EXP):
            rows, slot = (top_i == e).nonzero(as_tuple=True)
            if rows.numel():
                h = F.gelu(flat[rows] @ self.w_in[e]) @ self.w_out[e]
                out.index_add_(0, rows, (h.float() * top_p[rows, slot, None]).to(out.dtype))
        load = F.one_hot(top_i, N_EXP).float().sum(1).mean(0) / TOP_K
        aux = N_EXP * (load * probs.mean(0)).sum()
        z = torch.logsumexp(logits, -1).pow(2).mean()
        return out.view(B, T, C), AUX_W * aux + Z_W * z


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.RMSNorm(D), nn.RMSNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D, bias=False), nn.Linear(D, D, bias=False)
        self.moe = MoE()

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.n1(x)).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C))
        m, aux = self.moe(self.n2(x))
        return x + m, aux


class MoELM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(SEQ, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)
        self.head.weight = self.emb.weight
        nn.init.normal_(self.emb.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)

    def forward(self, idx):
        x = self.emb(idx) + self.pos(torch.arange(idx.size(1)))
        aux_total = x.new_zeros((), dtype=torch.float32)
        for blk in self.blocks:
            x, aux = checkpoint(blk, x, use_reentrant=False)
            aux_total = aux_total + aux
        return self.head(self.norm(x)), aux_total


def lr_lambda(step):
    if step < WARMUP:
        return (step + 1) / WARMUP
    return 0.5 * (1 + math.cos(math.pi * (step - WARMUP) / (STEPS - WARMUP)))


def micro_batch(bs=8):
    a = torch.randint(0, VOCAB, (bs, 1))
    s = torch.randint(1, 4, (bs, 1))
    seq = (a + s * torch.arange(SEQ + 1)) % VOCAB
    return seq[:, :-1], seq[:, 1:]


model = MoELM()
opt = torch.optim.AdamW(model.parameters(), lr=MAX_LR, betas=(0.9, 0.95), weight_decay=0.1)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
for step in range(STEPS):
    opt.zero_grad(set_to_none=True)
    total = 0.0
    for _ in range(ACCUM):
        x, y = micro_batch()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits, aux = model(x)
        ce = F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1))
        ((ce + aux) / ACCUM).backward()
        total += ce.item() / ACCUM
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 5 == 0:
        print(f"step {step:2d} lr {sched.get_last_lr()[0]:.2e} ce {total:.4f} aux {aux.item():.4f}")
assert math.isfinite(total)
print(f"final ce {total:.4f}")
