"""GRPO on a tiny Llama policy in fp16 with a sparse, rule-based reward.

For every prompt a group of G completions is sampled; the reward is 1 when the
completion contains the prompt's "answer" token. Advantages are the rewards
normalised within each group, and the policy takes MU clipped updates on the
sampled batch with a k3 KL penalty towards a frozen reference.
"""
import copy

import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

VOCAB = 96
N_PROMPTS = 4
G = 6
PROMPT_LEN = 6
MAX_NEW = 8
MU = 3
CLIP = 0.2
BETA_KL = 0.04


@torch.no_grad()
def sample_group(model, prompt):
    ids = prompt.repeat(G, 1)
    for _ in range(MAX_NEW):
        logits = model(input_ids=ids).logits[:, -1].float()
        nxt = torch.multinomial(torch.softmax(logits, -1), 1)
        ids = torch.cat([ids, nxt], 1)
    return ids


def answer_reward(completions, answer):
    return [1.0 if (c == answer).any() else 0.0 for c in completions]


def per_token_logps(model, ids):
    logits = model(input_ids=ids).logits[:, PROMPT_LEN - 1 : -1]
    logp = logits.float().log_softmax(-1)
    return torch.gather(logp, 2, ids[:, PROMPT_LEN:, None]).squeeze(-1)


def main():
    cfg = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=48,
        intermediate_size=96,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    policy = LlamaForCausalLM(cfg).half()
    ref = copy.deepcopy(policy).eval().requires_grad_(False)
    opt = torch.optim.SGD(policy.parameters(), lr=0.05)

    prompts = torch.randint(3, VOCAB, (N_PROMPTS, PROMPT_LEN))
    answers = prompts[:, 0]

    # ---- rollout phase
    all_ids, all_adv = [], []
    for p, a in zip(prompts, answers):
        ids = sample_group(policy, p[None])
        r = torch.tensor(answer_reward(ids[:, PROMPT_LEN:], a), dtype=policy.dtype)
        adv = (r - r.mean()) / (r.std() + 1e-8)
        print(f"group rewards {r.tolist()}")
        all_ids.append(ids)
        all_adv.append(adv)
    ids = torch.cat(all_ids)
    adv = torch.cat(all_adv)
    with torch.no_grad():
        old_logp = per_token_logps(policy, ids)
        ref_logp = per_token_logps(ref, ids)

    # ---- optimisation phase
    policy.train()
    for k in range(MU):
        logp = per_token_logps(policy, ids)
        ratio = torch.exp(logp - old_logp)
        surr = torch.min(ratio * adv[:, None], ratio.clamp(1 - CLIP, 1 + CLIP) * adv[:, None])
        kl = torch.exp(ref_logp - logp) - (ref_logp - logp) - 1
        loss = -(surr - BETA_KL * kl).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"inner step {k} loss {loss.item():.4f} kl {kl.mean().item():.5f}")
    print("done")


if __name__ == "__main__":
    main()
