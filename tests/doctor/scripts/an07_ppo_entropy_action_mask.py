import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, PROMPT_LEN, GEN_LEN, BATCH = 80, 64, 6, 12, 16
DIGITS = torch.arange(16, 26)
CLIP, ENT_COEF = 0.2, 0.01

allowed = torch.zeros(VOCAB, dtype=torch.bool)
allowed[DIGITS] = True


class GRUPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.rnn = nn.GRU(D, D, batch_first=True)
        self.lm_head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        h, _ = self.rnn(self.embed(ids))
        return self.lm_head(h)


def constrained_logits(logits):
    penalty = (~allowed).to(logits.dtype) * -1e9
    return logits + penalty


def digit_reward(resp):
    vals = resp - DIGITS[0]
    return (vals[:, 1:] >= vals[:, :-1]).float().mean(-1)


policy = GRUPolicy().half()
opt = torch.optim.SGD(policy.parameters(), lr=0.05)

prompts = torch.randint(0, VOCAB, (BATCH, PROMPT_LEN))
with torch.no_grad():
    seqs = prompts
    for _ in range(GEN_LEN):
        logits = constrained_logits(policy(seqs)[:, -1])
        nxt = torch.multinomial(F.softmax(logits.float(), -1), 1)
        seqs = torch.cat([seqs, nxt], 1)
    resp = seqs[:, PROMPT_LEN:]
    old_logp = F.log_softmax(constrained_logits(policy(seqs)[:, PROMPT_LEN - 1:-1]), -1)
    old_logp = old_logp.gather(-1, resp[..., None]).squeeze(-1)
    rewards = digit_reward(resp)
    adv = ((rewards - rewards.mean()) / (rewards.std() + 1e-6)).to(old_logp.dtype)[:, None]

print(f"mean reward {rewards.mean():.3f}")
for epoch in range(4):
    logits = constrained_logits(policy(seqs)[:, PROMPT_LEN - 1:-1])
    logp_all = F.log_softmax(logits, -1)
    logp = logp_all.gather(-1, resp[..., None]).squeeze(-1)
    entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
    ratio = torch.exp(logp - old_logp)
    pg = -torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv).mean()
    loss = pg - ENT_COEF * entropy
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f} pg {pg.item():.4f} entropy {entropy.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(policy.state_dict(), f"{d}/policy.pt")
