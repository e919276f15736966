"""PPO (actor-critic) on a tiny GPT-2 with accelerate bf16 mixed precision.

Rollouts with a frozen reference for the KL penalty, rewards from a NumPy scorer,
GAE in fp32, whitened advantages, clipped surrogate + clipped value loss + entropy.
"""
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)

VOCAB = 128
PROMPT_LEN = 5
RESP_LEN = 8
BS = 8
GAMMA, LAM = 1.0, 0.95
KL_COEF, CLIP, VF_CLIP = 0.05, 0.2, 0.2


class ActorCritic(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.lm = GPT2LMHeadModel(cfg)
        self.v_head = nn.Linear(cfg.n_embd, 1)

    def forward(self, input_ids):
        out = self.lm(input_ids=input_ids, output_hidden_states=True)
        return out.logits, self.v_head(out.hidden_states[-1]).squeeze(-1)


def numpy_score(resp):
    r = resp.cpu().numpy()
    # reward distinct tokens, penalise repeats of the first token
    return np.array([len(set(row.tolist())) / len(row) - 0.5 * (row == row[0]).mean() for row in r], dtype=np.float64)


def logprobs_of(logits, ids):
    lp = logits[:, PROMPT_LEN - 1 : -1].float().log_softmax(-1)
    return torch.gather(lp, 2, ids[:, PROMPT_LEN:, None]).squeeze(-1)


def whiten(x, eps=1e-8):
    return (x - x.mean()) / torch.sqrt(x.var() + eps)


def main():
    accelerator = Accelerator(cpu=True, mixed_precision="bf16")
    cfg = GPT2Config(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=64, bos_token_id=1, eos_token_id=2,
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)  # no dropout in RL fine-tuning
    model = ActorCritic(cfg)
    ref = copy.deepcopy(model.lm).eval().requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    model, opt = accelerator.prepare(model, opt)

    for it in range(3):
        prompts = torch.randint(3, VOCAB, (BS, PROMPT_LEN))
        with torch.no_grad():
            ids = prompts
            for _ in range(RESP_LEN):
                logits, _ = model(ids)
                nxt = torch.multinomial(torch.softmax(logits[:, -1].float(), -1), 1)
                ids = torch.cat([ids, nxt], 1)
            logits, values = model(ids)
            old_logp = logprobs_of(logits, ids)
            old_values = values[:, PROMPT_LEN - 1 : -1].float()
            with accelerator.autocast():
                ref_logp = logprobs_of(ref(input_ids=ids).logits, ids)

        scores = torch.from_numpy(numpy_score(ids[:, PROMPT_LEN:])).float()
        rewards = -KL_COEF * (old_logp - ref_logp)
        rewards[:, -1] += scores

        adv = torch.zeros_like(rewards)
        last = torch.zeros(BS)
        for t in reversed(range(RESP_LEN)):
            nv = old_values[:, t + 1] if t + 1 < RESP_LEN else torch.zeros(BS)
            delta = rewards[:, t] + GAMMA * nv - old_values[:, t]
            last = delta + GAMMA * LAM * last
            adv[:, t] = last
        returns = adv + old_values
        adv = whiten(adv)

        for epoch in range(2):
            logits, values = model(ids)
            logp = logprobs_of(logits, ids)
            v = values[:, PROMPT_LEN - 1 : -1].float()
            ratio = torch.exp(logp - old_logp)
            pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - CLIP, 1 + CLIP)).mean()
            v_clipped = old_values + (v - old_values).clamp(-VF_CLIP, VF_CLIP)
            vf = 0.5 * torch.max((v - returns) ** 2, (v_clipped - returns) ** 2).mean()
            probs = logits[:, PROMPT_LEN - 1 : -1].float().softmax(-1)
            ent = -(probs * logits[:, PROMPT_LEN - 1 : -1].float().log_softmax(-1)).sum(-1).mean()
            loss = pg + 0.1 * vf - 0.01 * ent
            opt.zero_grad()
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        kl = (old_logp - ref_logp).sum(-1).mean()
        accelerator.print(
            f"iter {it} score {scores.mean().item():.3f} kl {kl.item():.4f} pg {pg.item():.4f} vf {vf.item():.4f} ent {ent.item():.3f}"
        )
    accelerator.print("done")


if __name__ == "__main__":
    main()
