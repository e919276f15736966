import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, SEQ = 384, 48


class LM(nn.Module):
    def __init__(self, d, layers, heads):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.pos = nn.Embedding(SEQ, d)
        block = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf")), 1).to(self.emb.weight.dtype)
        h = self.body(self.emb(ids) + self.pos(torch.arange(t)), mask=mask, is_causal=True)
        return self.head(self.norm(h))


class EMA:
    def __init__(self, model, decay=0.995):
        self.shadow = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for e, p in zip(self.shadow.parameters(), model.parameters()):
            e.lerp_(p, 1.0 - self.decay)


def sample_prompts(n):
    ids = torch.randint(0, VOCAB, (n, SEQ))
    ids[:, 1::2] = (ids[:, ::2] * 3 + 1) % VOCAB
    return ids


target = LM(192, 3, 6).eval()
for p in target.parameters():
    p.requires_grad_(False)
draft = LM(96, 1, 4)
ema = EMA(draft)
draft = draft.to(torch.bfloat16)
opt = torch.optim.AdamW(draft.parameters(), lr=3e-4, weight_decay=0.01)
temperature = 2.0

for step in range(30):
    ids = sample_prompts(16)
    with torch.no_grad():
        t_logp = F.log_softmax(target(ids) / temperature, dim=-1)
    d_logp = F.log_softmax(draft(ids).float() / temperature, dim=-1)
    kl = F.kl_div(d_logp, t_logp, log_target=True, reduction="batchmean") * temperature ** 2
    opt.zero_grad(set_to_none=True)
    kl.backward()
    torch.nn.utils.clip_grad_norm_(draft.parameters(), 1.0)
    opt.step()
    ema.update(draft)
    if step % 5 == 0:
        print(f"step {step:2d}: distill KL {kl.item():.4f}")

with torch.no_grad():
    ids = sample_prompts(8)
    p = F.softmax(target(ids), -1)
    for name, m in (("draft", draft), ("ema", ema.shadow)):
        q = F.softmax(m(ids).float(), -1)
        acc = torch.minimum(p, q).sum(-1).mean()
        print(f"{name}: expected acceptance {acc.item():.4f}")
