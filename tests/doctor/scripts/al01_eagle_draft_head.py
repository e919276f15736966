import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, N_LAYERS, N_HEADS = 256, 128, 3, 4


class Block(nn.Module):
    def __init__(self, d, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n_heads = n_heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.n_heads, -1).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class TargetLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList([Block(D, N_HEADS) for _ in range(N_LAYERS)])
        self.norm = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        h = self.emb(ids)
        for blk in self.blocks:
            h = blk(h)
        h = self.norm(h)
        return self.lm_head(h), h


class EagleDraft(nn.Module):
    """Feature-level draft: predicts next hidden state from (target feature, token embedding)."""

    def __init__(self, emb, lm_head):
        super().__init__()
        self.emb = emb
        self.fc = nn.Linear(2 * D, D)
        self.block = Block(D, N_HEADS)
        self.lm_head = lm_head

    def forward(self, feats, ids):
        x = self.fc(torch.cat([feats, self.emb(ids)], dim=-1))
        h = self.block(x)
        return self.lm_head(h), h


target = TargetLM().eval()
draft = EagleDraft(
    nn.Embedding.from_pretrained(target.emb.weight.detach().clone()),
    nn.Linear(D, VOCAB, bias=False),
)
draft.lm_head.weight.data.copy_(target.lm_head.weight.data)
draft = draft.to(torch.bfloat16).eval()


@torch.no_grad()
def speculative_step(ids, feats, k=4, temperature=1.0):
    draft_tokens, draft_probs = [], []
    cur_ids, cur_feats = ids, feats
    for _ in range(k):
        logits, h = draft(cur_feats, cur_ids)
        q = F.softmax(logits[:, -1].float() / temperature, dim=-1)
        tok = torch.multinomial(q, 1)
        draft_tokens.append(tok)
        draft_probs.append(q)
        cur_ids = torch.cat([cur_ids, tok], dim=1)
        cur_feats = torch.cat([cur_feats, h[:, -1:]], dim=1)
    proposal = torch.cat(draft_tokens, dim=1)
    logits, h_t = target(torch.cat([ids, proposal], dim=1))
    p_all = F.softmax(logits[:, ids.shape[1] - 1:].float() / temperature, dim=-1)
    accepted = 0
    for i in range(k):
        tok = proposal[0, i]
        ratio = p_all[0, i, tok] / draft_probs[i][0, tok]
        if torch.rand(()) < ratio.clamp(max=1.0):
            accepted += 1
            continue
        residual = (p_all[0, i] - draft_probs[i][0]).clamp(min=0)
        nxt = torch.multinomial(residual / residual.sum(), 1)
        return torch.cat([proposal[:, :i], nxt[None]], dim=1), accepted, h_t
    return proposal, accepted, h_t


prompt = torch.randint(0, VOCAB, (1, 12))
with torch.no_grad():
    _, feats = target(prompt)
ids = prompt
total_acc, rounds = 0, 0
while ids.shape[1] < 48:
    new, acc, h_t = speculative_step(ids, feats[:, : ids.shape[1]])
    ids = torch.cat([ids, new], dim=1)
    feats = h_t
    total_acc += acc
    rounds += 1
    print(f"round {rounds}: accepted {acc}, length {ids.shape[1]}")
print("mean accepted per round:", total_acc / rounds)
