import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)

VOCAB = 128
PROMPT_LEN = 8
GEN_LEN = 12
BATCH = 8
TARGET_TOKENS = set(range(10, 30))


class PolicyWithValue(nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm
        self.v_head = nn.Linear(lm.config.n_embd, 1)

    def forward(self, input_ids, attention_mask=None):
        out = self.lm(input_ids, attention_mask=attention_mask, output_hidden_states=True)
        values = self.v_head(out.hidden_states[-1]).squeeze(-1)
        return out.logits, values


def rule_reward(seq):
    return sum(1.0 for t in seq.tolist() if t in TARGET_TOKENS) / len(seq)


def gae(rewards, values, gamma=1.0, lam=0.95):
    adv = torch.zeros_like(rewards)
    last = 0.0
    T = rewards.size(1)
    for t in reversed(range(T)):
        nxt = values[:, t + 1] if t + 1 < T else 0.0
        delta = rewards[:, t] + gamma * nxt - values[:, t]
        last = delta + gamma * lam * last
        adv[:, t] = last
    return adv, adv + values


cfg = GPT2Config(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=64,
                 bos_token_id=0, eos_token_id=1, pad_token_id=1)
lm = GPT2LMHeadModel(cfg)
lm.half()
policy = PolicyWithValue(lm)
ref = GPT2LMHeadModel(cfg).half().eval()
ref.load_state_dict(lm.state_dict())
opt = torch.optim.SGD(policy.parameters(), lr=1e-3)
kl_coef, clip_eps = 0.05, 0.2

ckpt_dir = tempfile.mkdtemp()
for it in range(3):
    prompts = torch.randint(2, VOCAB, (BATCH, PROMPT_LEN))
    with torch.no_grad():
        seqs = lm.generate(prompts, max_new_tokens=GEN_LEN, do_sample=True, top_k=0,
                           pad_token_id=1, min_new_tokens=GEN_LEN)
        logits, values = policy(seqs)
        old_logp = F.log_softmax(logits[:, PROMPT_LEN - 1:-1].float(), -1)
        old_logp = old_logp.gather(-1, seqs[:, PROMPT_LEN:, None]).squeeze(-1)
        ref_logits = ref(seqs).logits[:, PROMPT_LEN - 1:-1].float()
        ref_logp = F.log_softmax(ref_logits, -1).gather(-1, seqs[:, PROMPT_LEN:, None]).squeeze(-1)
        values = values[:, PROMPT_LEN - 1:-1].float()
        scores = torch.tensor([rule_reward(s[PROMPT_LEN:]) for s in seqs])
        rewards = -kl_coef * (old_logp - ref_logp)
        rewards[:, -1] += scores
        adv, returns = gae(rewards, values)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)

    for epoch in range(2):
        logits, v = policy(seqs)
        logp = F.log_softmax(logits[:, PROMPT_LEN - 1:-1].float(), -1)
        logp = logp.gather(-1, seqs[:, PROMPT_LEN:, None]).squeeze(-1)
        ratio = torch.exp(logp - old_logp)
        pg = -torch.min(ratio * adv, ratio.clamp(1 - clip_eps, 1 + clip_eps) * adv).mean()
        vf = F.mse_loss(v[:, PROMPT_LEN - 1:-1].float(), returns)
        loss = pg + 0.5 * vf
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"iter {it} reward {scores.mean():.3f} loss {loss.item():.4f}")

torch.save(policy.state_dict(), f"{ckpt_dir}/policy.pt")
