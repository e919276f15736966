import math
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, H, PROMPT_LEN, MAX_RESP = 96, 64, 4, 6, 14
SIMPO_BETA, SIMPO_GAMMA, IPO_TAU, IPO_WEIGHT = 2.0, 0.5, 0.1, 0.1


class CausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(32, D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids, attn_mask):
        B, T = ids.shape
        x = self.embed(ids) + self.pos(torch.arange(T))
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        allowed = torch.ones(T, T, dtype=torch.bool).tril() & attn_mask[:, None, None, :].bool()
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        x = x + self.proj((scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D))
        x = x + self.mlp(self.ln2(x))
        return self.head(x)


def make_batch(n):
    prompts = torch.randint(2, VOCAB, (n, PROMPT_LEN))
    lens_c = torch.randint(6, MAX_RESP + 1, (n,))
    lens_r = torch.randint(6, MAX_RESP + 1, (n,))
    chosen = torch.randint(2, 30, (n, MAX_RESP))
    rejected = torch.randint(60, VOCAB, (n, MAX_RESP))
    pos = torch.arange(MAX_RESP)[None]
    mc, mr = pos < lens_c[:, None], pos < lens_r[:, None]
    chosen, rejected = chosen.masked_fill(~mc, 0), rejected.masked_fill(~mr, 0)
    ones = torch.ones(n, PROMPT_LEN, dtype=torch.long)
    return (torch.cat([prompts, chosen], 1), torch.cat([ones, mc.long()], 1),
            torch.cat([prompts, rejected], 1), torch.cat([ones, mr.long()], 1))


def avg_logp(model, ids, mask):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(ids, mask)
    logp = F.log_softmax(logits[:, PROMPT_LEN - 1:-1].float(), -1)
    tok = logp.gather(-1, ids[:, PROMPT_LEN:, None]).squeeze(-1)
    resp_mask = mask[:, PROMPT_LEN:].float()
    return (tok * resp_mask).sum(-1) / resp_mask.sum(-1).clamp_min(1.0)


policy = CausalLM()
opt = torch.optim.AdamW(policy.parameters(), lr=1e-3, weight_decay=0.0)

for step in range(30):
    c_ids, c_mask, r_ids, r_mask = make_batch(16)
    lp_c, lp_r = avg_logp(policy, c_ids, c_mask), avg_logp(policy, r_ids, r_mask)
    logits = SIMPO_BETA * (lp_c - lp_r) - SIMPO_GAMMA
    simpo = -F.logsigmoid(logits).mean()
    ipo = ((lp_c - lp_r) - 1 / (2 * IPO_TAU)).pow(2).mean()
    loss = simpo + IPO_WEIGHT * ipo
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f} simpo {simpo.item():.4f} ipo {ipo.item():.4f} "
              f"acc {(lp_c > lp_r).float().mean().item():.2f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(policy.state_dict(), f"{d}/simpo_policy.pt")
print(f"final loss {loss.item():.4f}")
