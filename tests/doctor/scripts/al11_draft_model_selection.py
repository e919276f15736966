import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB = 1024


class GRULM(nn.Module):
    """Cheap recurrent draft model."""

    def __init__(self, d):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.rnn = nn.GRU(d, d, batch_first=True)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return self.out(h)


class TransformerLM(nn.Module):
    def __init__(self, d, layers, heads):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.pos = nn.Embedding(256, d)
        enc = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(enc, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.out = nn.Linear(d, VOCAB, bias=False)
        nn.init.normal_(self.out.weight, std=0.3)

    def forward(self, ids):
        t = ids.shape[1]
        h = self.emb(ids) + self.pos(torch.arange(t))
        mask = nn.Transformer.generate_square_subsequent_mask(t, dtype=h.dtype)
        return self.out(self.norm(self.body(h, mask=mask, is_causal=True)))


def draft_stats(target, draft, batches, temperature):
    kl_sum, accept_sum, n = 0.0, 0.0, 0
    with torch.no_grad():
        for ids in batches:
            p = torch.softmax(target(ids) / temperature, dim=-1)
            q = torch.softmax(draft(ids) / temperature, dim=-1)
            kl = (p * (torch.log(p) - torch.log(q))).sum(-1)
            accept = torch.minimum(p, q).sum(-1)
            kl_sum += kl.float().sum().item()
            accept_sum += accept.float().sum().item()
            n += kl.numel()
    return kl_sum / n, accept_sum / n


def expected_tokens_per_step(alpha, gamma):
    if alpha >= 1.0:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


target = TransformerLM(256, 4, 8).half().eval()
candidates = {
    "gru-64": GRULM(64),
    "gru-128": GRULM(128),
    "tiny-tf": TransformerLM(64, 1, 2),
    "small-tf": TransformerLM(128, 2, 4),
}
for name, m in candidates.items():
    with torch.no_grad():
        m.emb.weight.copy_(target.emb.weight[:, : m.emb.weight.shape[1]])
    candidates[name] = m.half().eval()

calib = [torch.randint(0, VOCAB, (4, 48)) for _ in range(3)]
results = {}
for name, draft in candidates.items():
    kl, alpha = draft_stats(target, draft, calib, temperature=0.7)
    speedup = {g: expected_tokens_per_step(alpha, g) for g in (2, 4, 6)}
    results[name] = (kl, alpha)
    print(f"{name:9s} KL(target||draft) {kl:.4f}  acceptance {alpha:.4f}  "
          f"tokens/step g=2 {speedup[2]:.2f} g=4 {speedup[4]:.2f} g=6 {speedup[6]:.2f}")
best = min(results, key=lambda k: results[k][0])
print("selected draft:", best, "KL", results[best][0])
