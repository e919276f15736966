"""PPO with a value head on a tiny GPT-J policy, fp16 autocast on top of fp32 weights.

Dense reward: every generated token is rewarded with its log-probability under a
frozen "judge" LM (a fluency reward). Advantages and returns come from GAE over the
per-token rewards; the loss is the clipped surrogate + value loss - entropy bonus.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import GPTJConfig, GPTJForCausalLM

torch.manual_seed(0)

VOCAB = 1024
PROMPT_LEN = 4
RESP_LEN = 48
BS = 4
GAMMA, LAM = 1.0, 1.0
CLIP, VF_COEF, ENT_COEF = 0.2, 0.5, 0.01
AMP = dict(device_type="cpu", dtype=torch.float16)


def gptj_cfg():
    return GPTJConfig(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, n_positions=128, bos_token_id=1, eos_token_id=2)


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = GPTJForCausalLM(gptj_cfg())
        self.value_head = nn.Linear(64, 1)

    def forward(self, ids):
        out = self.lm(input_ids=ids, output_hidden_states=True)
        return out.logits, self.value_head(out.hidden_states[-1]).squeeze(-1)


def sample(lm, ids, max_new):
    out = lm(input_ids=ids, use_cache=True)
    for _ in range(max_new):
        nxt = torch.multinomial(torch.softmax(out.logits[:, -1].float(), dim=-1), 1)
        ids = torch.cat([ids, nxt], dim=1)
        out = lm(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
    return ids


def resp_slice(x):
    return x[:, PROMPT_LEN - 1 : -1]


def token_logps(logits, ids):
    return torch.gather(logits.float().log_softmax(-1), 2, ids[:, PROMPT_LEN:, None]).squeeze(-1)


def compute_gae(rewards, values):
    advantages = torch.zeros_like(values)
    last = 0.0
    T = rewards.size(1)
    for t in reversed(range(T)):
        next_v = values[:, t + 1] if t + 1 < T else 0.0
        delta = rewards[:, t] + GAMMA * next_v - values[:, t]
        last = delta + GAMMA * LAM * last
        advantages[:, t] = last
    returns = advantages + values
    return advantages, returns


def main():
    model = ActorCritic()
    judge = GPTJForCausalLM(gptj_cfg()).eval().requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)

    for it in range(2):
        prompts = torch.randint(3, VOCAB, (BS, PROMPT_LEN))
        with torch.no_grad(), torch.autocast(**AMP):
            ids = sample(model.lm, prompts, RESP_LEN)
            logits, values = model(ids)
            old_logp = token_logps(resp_slice(logits), ids)
            values = resp_slice(values)
            rewards = token_logps(resp_slice(judge(input_ids=ids).logits), ids)

        adv, returns = compute_gae(rewards, values)
        adv = (adv - adv.mean()) / (adv.std() + 1e-5)

        for epoch in range(2):
            with torch.autocast(**AMP):
                logits, v = model(ids)
                logits, v = resp_slice(logits), resp_slice(v)
                logp = token_logps(logits, ids)
                ratio = torch.exp(logp - old_logp)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - CLIP, 1 + CLIP)).mean()
                vf_loss = 0.5 * ((v - returns) ** 2).mean()
                probs = logits.float().softmax(-1)
                entropy = -(probs * logits.float().log_softmax(-1)).sum(-1).mean()
                loss = pg_loss + VF_COEF * vf_loss - ENT_COEF * entropy
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            print(
                f"iter {it} epoch {epoch} reward {rewards.sum(-1).mean().item():.1f} "
                f"pg {pg_loss.item():.4f} vf {vf_loss.item():.4f} ent {entropy.item():.3f}"
            )
    print("done")


if __name__ == "__main__":
    main()
