import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, D, LAYERS, PROMPT_LEN, GEN_LEN = 32, 64, 2, 8, 40
GROUP, N_PROMPTS, MU, MINIBATCHES = 8, 4, 4, 4
CLIP_EPS, BETA, LR = 0.2, 0.04, 1e-3
AMP = dict(device_type="cpu", dtype=torch.float16)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(PROMPT_LEN + GEN_LEN, D)
        layer = nn.TransformerEncoderLayer(D, 4, 4 * D, dropout=0.0, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, idx):
        T = idx.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        h = self.body(self.emb(idx) + self.pos(torch.arange(T)), mask=mask, is_causal=True)
        return self.head(h)


def token_logps(model, seqs):
    logits = model(seqs[:, :-1])
    logp = logits.log_softmax(-1).gather(-1, seqs[:, 1:, None]).squeeze(-1)
    return logp[:, PROMPT_LEN - 1 :]


@torch.no_grad()
def rollout(model, prompts):
    seqs = prompts.repeat_interleave(GROUP, 0)
    for _ in range(GEN_LEN):
        with torch.autocast(**AMP):
            logits = model(seqs)[:, -1].float()
        nxt = torch.multinomial(logits.softmax(-1), 1)
        seqs = torch.cat([seqs, nxt], 1)
    return seqs


def reward_fn(seqs):
    comp = seqs[:, PROMPT_LEN:]
    ups = (comp[:, 1:] > comp[:, :-1]).float().mean(-1)
    evens = (comp % 2 == 0).float().mean(-1)
    return ups + 0.5 * evens


def grpo_loss(model, ref, seqs, old_logps, adv):
    logps = token_logps(model, seqs)
    with torch.no_grad():
        ref_logps = token_logps(ref, seqs)
    seq_logp, old_seq_logp = logps.sum(-1), old_logps.sum(-1)
    ratio = torch.exp(seq_logp - old_seq_logp)
    clipped = torch.clamp(ratio, 1 - CLIP_EPS, 1 + CLIP_EPS)
    policy_obj = torch.minimum(ratio * adv, clipped * adv)
    log_r = ref_logps - logps
    kl = (torch.exp(log_r) - log_r - 1).mean(-1)
    return (-(policy_obj - BETA * kl)).mean(), kl.mean()


policy = Policy()
ref = copy.deepcopy(policy).requires_grad_(False).eval()
opt = torch.optim.AdamW(policy.parameters(), lr=LR, weight_decay=0.0)

prompts = torch.randint(0, VOCAB, (N_PROMPTS, PROMPT_LEN))
seqs = rollout(policy, prompts)
rewards = reward_fn(seqs).view(N_PROMPTS, GROUP)
adv = ((rewards - rewards.mean(1, keepdim=True)) / (rewards.std(1, keepdim=True) + 1e-4)).view(-1)
with torch.no_grad(), torch.autocast(**AMP):
    old_logps = token_logps(policy, seqs)
print(f"mean reward {rewards.mean().item():.4f}")

losses = []
for it in range(MU):
    perm = torch.randperm(seqs.size(0)).chunk(MINIBATCHES)
    for idx in perm:
        with torch.autocast(**AMP):
            loss, kl = grpo_loss(policy, ref, seqs[idx], old_logps[idx], adv[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    print(f"epoch {it} loss {sum(losses[-MINIBATCHES:]) / MINIBATCHES:.4f} kl {kl.item():.4f}")

print(f"final grpo loss {losses[-1]:.4f}")
