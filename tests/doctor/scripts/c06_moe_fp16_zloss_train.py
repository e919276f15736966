"""Small switch-style MoE language model trained in fp16 with load-balancing and z-losses (ST-MoE / PaLM)."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, N_EXPERTS, TOP_K, CTX = 512, 64, 4, 2, 4, 2, 32


def z_loss(logits):
    # ST-MoE eq. 5:  (1/B) * sum_i (log sum_j exp(x_ij))^2
    return torch.log(torch.exp(logits).sum(dim=-1)).pow(2).mean()


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(D, 2 * D, bias=False)
        self.w2 = nn.Linear(2 * D, D, bias=False)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x)))


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Linear(D, N_EXPERTS, bias=False)
        self.experts = nn.ModuleList([Expert() for _ in range(N_EXPERTS)])

    def forward(self, x):
        B, T, C = x.shape
        flat = x.reshape(-1, C)
        logits = self.router(flat)
        probs = logits.softmax(-1)
        topv, topi = probs.topk(TOP_K, dim=-1)
        topv = topv / topv.sum(-1, keepdim=True)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            tok, slot = (topi == e).nonzero(as_tuple=True)
            if tok.numel():
                out.index_add_(0, tok, expert(flat[tok]) * topv[tok, slot, None])
        # Switch load-balancing loss
        frac = F.one_hot(topi[:, 0], N_EXPERTS).to(probs.dtype).mean(0)
        aux = N_EXPERTS * (frac * probs.mean(0)).sum()
        return out.view(B, T, C), aux, z_loss(logits)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.moe = MoE()

    def attn(self, h):
        B, T, C = h.shape
        q, k, v = self.qkv(h).view(B, T, 3, HEADS, C // HEADS).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        m, aux, z = self.moe(self.ln2(x))
        return x + m, aux, z


class MoELM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.zeros(CTX, D))
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)

    def forward(self, ids):
        T = ids.size(1)
        x = self.tok(ids) + self.pos[:T]
        aux_total, z_total = 0.0, 0.0
        for blk in self.blocks:
            x, aux, z = blk(x)
            aux_total, z_total = aux_total + aux, z_total + z
        logits = self.ln_f(x) @ self.tok.weight.t()          # tied output embedding
        return logits, aux_total, z_total


model = MoELM().half()
opt = torch.optim.AdamW(model.parameters(), lr=5e-4, eps=1e-4)

for step in range(20):
    ids = torch.randint(0, VOCAB, (8, CTX + 1))
    logits, aux, router_z = model(ids[:, :-1])
    ce = F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
    out_z = z_loss(logits)                                    # PaLM-style output z-loss
    loss = ce + 0.01 * aux + 1e-3 * router_z + 1e-4 * out_z
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 5 == 0:
        print(f"step {step:2d} ce {ce.item():.3f} aux {aux.item():.3f} z {router_z.item():.3f} out_z {out_z.item():.1f}")
print("final loss", loss.item())
