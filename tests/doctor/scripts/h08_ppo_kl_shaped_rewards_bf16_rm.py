"""RLHF-style PPO step on a tiny Llama policy in bf16 with a bf16 reward model.

Per-token rewards are the KL penalty -kl_coef * (logp - ref_logp); the reward
model's sequence score is placed on the last response token (right padding, so
the last token position differs per sample). Then GAE and a clipped PPO update.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM, LlamaForSequenceClassification

torch.manual_seed(0)

VOCAB = 128
EOS = 2
PAD = 0
PROMPT_LEN = 5
MAX_NEW = 9
BS = 6
KL_COEF = 0.1
GAMMA, LAM = 1.0, 0.95


def cfg(**kw):
    return LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=48,
        intermediate_size=96,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        pad_token_id=PAD,
        eos_token_id=EOS,
        **kw,
    )


class Critic(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.body = LlamaForCausalLM(config).model
        self.head = nn.Linear(config.hidden_size, 1)

    def forward(self, ids, attn):
        h = self.body(input_ids=ids, attention_mask=attn).last_hidden_state
        return self.head(h).squeeze(-1)


@torch.no_grad()
def rollout(policy, prompts):
    ids = prompts
    done = torch.zeros(ids.size(0), dtype=torch.bool)
    for _ in range(MAX_NEW):
        logits = policy(input_ids=ids).logits[:, -1].float()
        nxt = torch.multinomial(torch.softmax(logits, -1), 1).squeeze(-1)
        nxt = torch.where(done, torch.full_like(nxt, PAD), nxt)
        done |= nxt == EOS
        ids = torch.cat([ids, nxt[:, None]], 1)
    resp = ids[:, PROMPT_LEN:]
    resp_mask = torch.ones_like(resp, dtype=torch.bool)
    for i in range(resp.size(0)):
        eos_pos = (resp[i] == EOS).nonzero()
        if len(eos_pos):
            resp_mask[i, eos_pos[0, 0] + 1 :] = False
    return ids, resp_mask


def token_logps(model, ids, attn):
    logits = model(input_ids=ids, attention_mask=attn).logits[:, PROMPT_LEN - 1 : -1]
    return torch.gather(logits.log_softmax(-1), 2, ids[:, PROMPT_LEN:, None]).squeeze(-1)


def compute_rewards(scores, logp, ref_logp, resp_mask):
    kl = logp - ref_logp
    rewards = -KL_COEF * kl.float()
    rewards = rewards * resp_mask
    last_idx = resp_mask.sum(-1) - 1
    rewards.scatter_(1, last_idx[:, None], scores[:, None], reduce="add")
    return rewards


def gae(rewards, values, mask):
    adv = torch.zeros_like(rewards)
    last = torch.zeros(rewards.size(0))
    for t in reversed(range(rewards.size(1))):
        nv = values[:, t + 1] if t + 1 < rewards.size(1) else torch.zeros_like(last)
        delta = rewards[:, t] + GAMMA * nv - values[:, t]
        last = delta + GAMMA * LAM * last
        adv[:, t] = last
    adv = adv * mask
    return adv, adv + values


def main():
    policy = LlamaForCausalLM(cfg()).to(torch.bfloat16)
    ref = copy.deepcopy(policy).eval()
    rm = LlamaForSequenceClassification(cfg(num_labels=1)).to(torch.bfloat16).eval()
    critic = Critic(cfg()).to(torch.bfloat16)
    opt = torch.optim.AdamW(list(policy.parameters()) + list(critic.parameters()), lr=1e-5)

    for it in range(2):
        prompts = torch.randint(3, VOCAB, (BS, PROMPT_LEN))
        ids, resp_mask = rollout(policy, prompts)
        attn = torch.cat([torch.ones(BS, PROMPT_LEN, dtype=torch.bool), resp_mask], 1).long()
        with torch.no_grad():
            old_logp = token_logps(policy, ids, attn)
            ref_logp = token_logps(ref, ids, attn)
            values = critic(ids, attn)[:, PROMPT_LEN - 1 : -1].float()
            scores = rm(input_ids=ids, attention_mask=attn).logits.squeeze(-1)

        rewards = compute_rewards(scores, old_logp, ref_logp, resp_mask)
        adv, returns = gae(rewards, values, resp_mask)
        adv = (adv - adv[resp_mask].mean()) / (adv[resp_mask].std() + 1e-8) * resp_mask

        logp = token_logps(policy, ids, attn).float()
        ratio = torch.exp(logp - old_logp.float())
        pg = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2))
        pg = (pg * resp_mask).sum() / resp_mask.sum()
        v = critic(ids, attn)[:, PROMPT_LEN - 1 : -1].float()
        vf = (((v - returns) ** 2) * resp_mask).sum() / resp_mask.sum()
        loss = pg + 0.5 * vf
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"iter {it} score {scores.float().mean().item():.3f} pg {pg.item():.4f} vf {vf.item():.4f}")
    print("done")


if __name__ == "__main__":
    main()
