import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, SEQ = 128, 64, 4, 2, 32
N_EXPERTS, TOP_K, AUX_COEF = 8, 2, 0.01


class Expert(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoE(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.gate = nn.Linear(d, N_EXPERTS, bias=False)
        self.experts = nn.ModuleList(Expert(d, 2 * d) for _ in range(N_EXPERTS))

    def forward(self, x):
        B, T, C = x.shape
        flat = x.reshape(-1, C)
        probs = self.gate(flat).softmax(-1)
        weights, chosen = probs.topk(TOP_K, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)

        out = torch.zeros(flat.shape[0], C, device=flat.device)
        for e, expert in enumerate(self.experts):
            tok, slot = torch.where(chosen == e)
            if tok.numel() == 0:
                continue
            y = expert(flat[tok]) * weights[tok, slot, None]
            out.index_add_(0, tok, y)

        frac_tokens = F.one_hot(chosen[:, 0], N_EXPERTS).float().mean(0)
        frac_probs = probs.float().mean(0)
        aux = N_EXPERTS * (frac_tokens * frac_probs).sum()
        return out.view(B, T, C), aux


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.moe = SparseMoE(D)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, HEADS, C // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(B, T, C))
        m, aux = self.moe(self.ln2(x))
        return x + m, aux


class MoELM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.zeros(1, SEQ, D))
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos[:, : idx.size(1)]
        aux_total = 0.0
        for blk in self.blocks:
            x, aux = blk(x)
            aux_total = aux_total + aux
        return self.head(self.ln_f(x)), aux_total


def get_batch(bs=16):
    a = torch.randint(0, VOCAB, (bs, 1))
    step = torch.randint(1, 5, (bs, 1))
    seq = (a + step * torch.arange(SEQ + 1)) % VOCAB
    return seq[:, :-1], seq[:, 1:]


model = MoELM().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95))
for step in range(30):
    x, y = get_batch()
    logits, aux = model(x)
    ce = F.cross_entropy(logits.float().view(-1, VOCAB), y.reshape(-1))
    loss = ce + AUX_COEF * aux
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} ce {ce.item():.4f} aux {aux.item():.4f}")
print(f"final ce {ce.item():.4f}")
