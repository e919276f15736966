import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, SEQ, N_CLASSES = 64, 64, 32, 4


class Expert(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.w_in = nn.Linear(d, hidden)
        self.w_out = nn.Linear(hidden, d)

    def forward(self, x):
        return self.w_out(F.gelu(self.w_in(x)))


class TopKMoE(nn.Module):
    def __init__(self, d, hidden, n_experts=8, k=2):
        super().__init__()
        self.k, self.n_experts = k, n_experts
        self.router = nn.Linear(d, n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(d, hidden) for _ in range(n_experts)])

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        probs = self.router(x).softmax(dim=-1)
        top_w, top_i = probs.topk(self.k, dim=-1)
        top_w = top_w / top_w.sum(dim=-1, keepdim=True)

        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            tok, slot = (top_i == e).nonzero(as_tuple=True)
            if tok.numel() == 0:
                continue
            y = expert(x[tok]) * top_w[tok, slot].unsqueeze(-1)
            out.index_add_(0, tok, y)

        frac = F.one_hot(top_i[:, 0], self.n_experts).float().mean(0)
        balance = self.n_experts * (frac * probs.float().mean(0)).sum()
        return out.reshape(shape), balance


class Block(nn.Module):
    def __init__(self, d, n_heads=4):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, n_heads, batch_first=True)
        self.moe = TopKMoE(d, 2 * d)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        m, aux = self.moe(self.ln2(x))
        return x + m, aux


class MoEClassifier(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.randn(SEQ, D) * 0.02)
        self.blocks = nn.ModuleList([Block(D) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, N_CLASSES)

    def forward(self, ids):
        x = self.emb(ids) + self.pos
        aux_total = 0.0
        for blk in self.blocks:
            x, aux = blk(x)
            aux_total = aux_total + aux
        return self.head(self.norm(x).mean(1)), aux_total


def make_batch(bs):
    ids = torch.randint(0, VOCAB, (bs, SEQ))
    labels = (ids < 16).sum(1) % N_CLASSES
    return ids, labels


model = MoEClassifier()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))

for step in range(120):
    ids, labels = make_batch(32)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits, aux = model(ids)
    loss = F.cross_entropy(logits.float(), labels) + 0.01 * aux
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 20 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}  aux {aux.item():.3f}")

model.eval()
with torch.no_grad():
    ids, labels = make_batch(256)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits, _ = model(ids)
    acc = (logits.argmax(-1) == labels).float().mean().item()
print(f"eval accuracy {acc:.3f}  (chance {1 / N_CLASSES:.3f}, uniform loss {math.log(N_CLASSES):.3f})")
