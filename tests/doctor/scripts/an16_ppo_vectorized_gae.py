import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, PROMPT_LEN, GEN_LEN, BATCH = 64, 48, 8, 160, 8
GAMMA, LAM, CLIP, VF_COEF, KL_COEF = 0.99, 0.9, 0.2, 0.5, 0.02


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.rnn = nn.GRU(D, D, batch_first=True)
        self.pi = nn.Linear(D, VOCAB)
        self.v = nn.Linear(D, 1)

    def forward(self, ids, h=None):
        out, h = self.rnn(self.embed(ids), h)
        return self.pi(out), self.v(out).squeeze(-1), h


def discounted_gae(rewards, values, gamma, lam):
    next_values = torch.cat([values[:, 1:], torch.zeros_like(values[:, :1])], 1)
    deltas = rewards + gamma * next_values - values
    T = deltas.size(1)
    disc = (gamma * lam) ** torch.arange(T, dtype=deltas.dtype)
    adv = torch.flip(torch.cumsum(torch.flip(deltas * disc, [1]), 1), [1]) / disc
    return adv, adv + values


@torch.no_grad()
def rollout(model, prompts):
    logits, _, h = model(prompts)
    toks = []
    for _ in range(GEN_LEN):
        tok = torch.multinomial(F.softmax(logits[:, -1].float(), -1), 1)
        toks.append(tok)
        logits, _, h = model(tok, h)
    return torch.cat([prompts] + toks, 1)


def evaluate(model, seqs):
    logits, values, _ = model(seqs)
    sl = slice(PROMPT_LEN - 1, -1)
    logp = F.log_softmax(logits[:, sl], -1).gather(-1, seqs[:, PROMPT_LEN:, None]).squeeze(-1)
    return logp, values[:, sl]


model = ActorCritic().half()
ref = ActorCritic().half().requires_grad_(False)
ref.load_state_dict(model.state_dict())
opt = torch.optim.SGD(model.parameters(), lr=0.02)

prompts = torch.randint(0, VOCAB, (BATCH, PROMPT_LEN))
seqs = rollout(model, prompts)
resp = seqs[:, PROMPT_LEN:]
with torch.no_grad():
    old_logp, old_values = evaluate(model, seqs)
    ref_logp, _ = evaluate(ref, seqs)
    rewards = -KL_COEF * (old_logp - ref_logp)
    rewards[:, -1] += (resp < 16).float().mean(-1).to(rewards.dtype)
    adv, returns = discounted_gae(rewards, old_values, GAMMA, LAM)
    adv = (adv - adv.mean()) / (adv.std() + 1e-4)

for epoch in range(3):
    logp, values = evaluate(model, seqs)
    ratio = torch.exp(logp - old_logp)
    pg = -torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv).mean()
    vf = 0.5 * ((values - returns) ** 2).mean()
    loss = pg + VF_COEF * vf
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f} pg {pg.item():.4f} vf {vf.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(model.state_dict(), f"{d}/ppo_actor_critic.pt")
