"""GRPO on a tiny Qwen3 policy in bf16 with a NumPy rule-based reward.

Groups of G samples per prompt, group-normalised advantages computed in fp32,
per-token clipped surrogate with a k3 KL estimate against a frozen bf16 reference,
all log-prob arithmetic in fp32.
"""
import copy

import numpy as np
import torch
from transformers import Qwen3Config, Qwen3ForCausalLM

torch.manual_seed(0)

VOCAB = 96
N_PROMPTS = 3
G = 6
PROMPT_LEN = 5
MAX_NEW = 8
MU = 2
CLIP = 0.2
BETA_KL = 0.04


@torch.no_grad()
def sample_group(model, prompt):
    ids = prompt.repeat(G, 1)
    out = model(input_ids=ids, use_cache=True)
    for _ in range(MAX_NEW):
        probs = torch.softmax(out.logits[:, -1].float(), dim=-1)
        nxt = torch.multinomial(probs, 1)
        ids = torch.cat([ids, nxt], dim=1)
        out = model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
    return ids


def numpy_reward(completions, prompt):
    c = completions.numpy()
    target = int(prompt[0]) % 8
    # partial credit: fraction of tokens with the right residue, plus a bonus for an exact hit
    return (c % 8 == target).mean(axis=1) + (c == int(prompt[0])).any(axis=1) * 1.0


def per_token_logps(model, ids):
    logits = model(input_ids=ids).logits[:, PROMPT_LEN - 1 : -1].float()
    return torch.gather(logits.log_softmax(-1), 2, ids[:, PROMPT_LEN:, None]).squeeze(-1)


def main():
    cfg = Qwen3Config(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=64,
    )
    policy = Qwen3ForCausalLM(cfg).to(torch.bfloat16)
    ref = copy.deepcopy(policy).eval().requires_grad_(False)
    opt = torch.optim.AdamW(policy.parameters(), lr=1e-4)

    for it in range(2):
        prompts = torch.randint(3, VOCAB, (N_PROMPTS, PROMPT_LEN))
        ids_l, adv_l, mean_r = [], [], []
        for p in prompts:
            ids = sample_group(policy, p[None])
            r = torch.from_numpy(numpy_reward(ids[:, PROMPT_LEN:], p)).float()
            adv_l.append((r - r.mean()) / (r.std() + 1e-4))
            ids_l.append(ids)
            mean_r.append(r.mean().item())
        ids = torch.cat(ids_l)
        adv = torch.cat(adv_l)[:, None]
        with torch.no_grad():
            old_logp = per_token_logps(policy, ids)
            ref_logp = per_token_logps(ref, ids)

        for _ in range(MU):
            logp = per_token_logps(policy, ids)
            ratio = torch.exp(logp - old_logp)
            surr = torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv)
            log_r = ref_logp - logp
            kl = torch.exp(log_r) - log_r - 1
            loss = -(surr - BETA_KL * kl).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
        print(f"iter {it} mean reward {np.mean(mean_r):.3f} loss {loss.item():.4f} kl {kl.mean().item():.5f}")
    print("done")


if __name__ == "__main__":
    main()
