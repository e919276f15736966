import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from transformers import MistralConfig, MistralForCausalLM

torch.manual_seed(0)

PROMPT_LEN, GEN_LEN, BATCH = 6, 10, 8
GAMMA, LAM, CLIP, VF_COEF, ENT_COEF, KL_COEF = 1.0, 0.95, 0.2, 0.5, 0.01, 0.05

cfg = MistralConfig(vocab_size=96, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                    sliding_window=None, bos_token_id=0, eos_token_id=1, pad_token_id=1)


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = MistralForCausalLM(cfg)
        self.value_head = nn.Linear(cfg.hidden_size, 1)

    def forward(self, ids):
        out = self.lm(ids, output_hidden_states=True)
        values = self.value_head(out.hidden_states[-1]).squeeze(-1)
        return out.logits.float(), values.float()


def gae(rewards, values):
    adv = torch.zeros_like(rewards)
    last = torch.zeros(rewards.size(0))
    for t in reversed(range(rewards.size(1))):
        nxt = values[:, t + 1] if t + 1 < rewards.size(1) else torch.zeros_like(last)
        delta = rewards[:, t] + GAMMA * nxt - values[:, t]
        last = delta + GAMMA * LAM * last
        adv[:, t] = last
    return adv, adv + values


def score(resp):
    return ((resp % 2) == 0).float().mean()


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = ActorCritic()
ref = MistralForCausalLM(cfg).eval().requires_grad_(False)
ref.load_state_dict(model.lm.state_dict())
opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
model, opt = accelerator.prepare(model, opt)
core = accelerator.unwrap_model(model)

for it in range(3):
    prompts = torch.randint(2, cfg.vocab_size, (BATCH, PROMPT_LEN))
    with torch.no_grad(), accelerator.autocast():
        seqs = core.lm.generate(prompts, attention_mask=torch.ones_like(prompts), do_sample=True,
                                max_new_tokens=GEN_LEN, min_new_tokens=GEN_LEN, top_k=0)
        logits, values = model(seqs)
        ref_logits = ref(seqs).logits.float()
    resp = seqs[:, PROMPT_LEN:]
    sl = slice(PROMPT_LEN - 1, -1)
    old_logp = F.log_softmax(logits[:, sl], -1).gather(-1, resp[..., None]).squeeze(-1)
    ref_logp = F.log_softmax(ref_logits[:, sl], -1).gather(-1, resp[..., None]).squeeze(-1)
    values = values[:, sl]
    rewards = -KL_COEF * (old_logp - ref_logp)
    rewards[:, -1] += torch.stack([score(r) for r in resp])
    adv, returns = gae(rewards, values)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)

    for epoch in range(2):
        logits, v = model(seqs)
        logp_all = F.log_softmax(logits[:, sl], -1)
        logp = logp_all.gather(-1, resp[..., None]).squeeze(-1)
        entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
        ratio = torch.exp(logp - old_logp)
        pg = -torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv).mean()
        vf = 0.5 * ((v[:, sl] - returns) ** 2).mean()
        loss = pg + VF_COEF * vf - ENT_COEF * entropy
        opt.zero_grad()
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    accelerator.print(f"iter {it} loss {loss.item():.4f} pg {pg.item():.4f} vf {vf.item():.4f} "
                      f"entropy {entropy.item():.3f}")

out_dir = tempfile.mkdtemp()
accelerator.save(accelerator.unwrap_model(model).state_dict(), os.path.join(out_dir, "actor_critic.pt"))
