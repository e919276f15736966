import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, PROMPT_LEN, GEN_LEN, BATCH = 72, 64, 6, 12, 16
CLIP, VF_COEF, LOSS_SCALE = 0.2, 0.5, 128.0


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.body = nn.GRU(D, D, num_layers=2, batch_first=True)
        self.policy_head = nn.Linear(D, VOCAB)
        self.value_head = nn.Sequential(nn.Linear(D, D), nn.Tanh(), nn.Linear(D, 1))

    def forward(self, ids):
        h, _ = self.body(self.embed(ids))
        return self.policy_head(h), self.value_head(h).squeeze(-1)


model = ActorCritic().half()
master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
opt = torch.optim.Adam(master, lr=1e-3)


@torch.no_grad()
def rollout(prompts):
    ids = prompts
    for _ in range(GEN_LEN):
        logits, _ = model(ids)
        ids = torch.cat([ids, torch.multinomial(F.softmax(logits[:, -1].float(), -1), 1)], 1)
    return ids


def evaluate(seqs):
    logits, values = model(seqs)
    sl = slice(PROMPT_LEN - 1, -1)
    logp = F.log_softmax(logits[:, sl].float(), -1)
    logp = logp.gather(-1, seqs[:, PROMPT_LEN:, None]).squeeze(-1)
    return logp, values[:, sl].float()


for it in range(3):
    prompts = torch.randint(0, VOCAB, (BATCH, PROMPT_LEN))
    seqs = rollout(prompts)
    with torch.no_grad():
        old_logp, old_values = evaluate(seqs)
    resp = seqs[:, PROMPT_LEN:]
    score = (resp[:, 1:] != resp[:, :-1]).float().mean(-1) - 0.5 * (resp == 0).any(-1).float()
    returns = torch.zeros_like(old_values)
    returns[:, -1] = score
    returns = returns.flip(1).cumsum(1).flip(1)
    adv = returns - old_values
    adv = (adv - adv.mean()) / (adv.std() + 1e-6)

    for epoch in range(2):
        logp, values = evaluate(seqs)
        ratio = torch.exp(logp - old_logp)
        pg = -torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv).mean()
        vf = F.mse_loss(values, returns)
        loss = pg + VF_COEF * vf
        model.zero_grad(set_to_none=True)
        (loss * LOSS_SCALE).backward()
        for m, p in zip(master, model.parameters()):
            m.grad = p.grad
        for m in master:
            m.grad.div_(LOSS_SCALE)
        torch.nn.utils.clip_grad_norm_(master, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for m, p in zip(master, model.parameters()):
                p.copy_(m)
    print(f"iter {it} score {score.mean():.3f} loss {loss.item():.4f} vf {vf.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    torch.save([m.detach() for m in master], f"{d}/master_fp32.pt")
