import os
import tempfile

import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

cfg = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                  bos_token_id=0, eos_token_id=1, pad_token_id=1)
PROMPT_LEN, GEN_LEN, BATCH = 8, 12, 8
KL_COEF, CLIP = 0.05, 0.2
workdir = tempfile.mkdtemp()

sft = LlamaForCausalLM(cfg)
sft_path = os.path.join(workdir, "sft.pt")
torch.save(sft.state_dict(), sft_path)


def load_frozen(path):
    with torch.device("meta"):
        model = LlamaForCausalLM(cfg)
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(state, assign=True)
    model.requires_grad_(False)
    return model.eval()


def response_logps(model, seqs):
    logits = model(seqs).logits[:, PROMPT_LEN - 1:-1]
    logp = F.log_softmax(logits.float(), -1)
    return logp.gather(-1, seqs[:, PROMPT_LEN:, None]).squeeze(-1)


def reward_fn(resp):
    toks = resp.tolist()
    return len(set(toks)) / len(toks) - 0.5 * (toks.count(1) > 0)


policy = LlamaForCausalLM(cfg)
policy.load_state_dict(torch.load(sft_path, weights_only=True))
ref = load_frozen(sft_path)
opt = torch.optim.AdamW(policy.parameters(), lr=1e-4)

for it in range(3):
    prompts = torch.randint(2, cfg.vocab_size, (BATCH, PROMPT_LEN))
    with torch.no_grad():
        seqs = policy.generate(prompts, attention_mask=torch.ones_like(prompts), do_sample=True,
                               max_new_tokens=GEN_LEN, min_new_tokens=GEN_LEN, top_k=0)
        old_logp = response_logps(policy, seqs)
        ref_logp = response_logps(ref, seqs)
    scores = torch.tensor([reward_fn(s[PROMPT_LEN:]) for s in seqs])
    kl = (old_logp - ref_logp).sum(-1)
    adv = scores - KL_COEF * kl
    adv = (adv - adv.mean()) / (adv.std() + 1e-6)

    for _ in range(2):
        logp = response_logps(policy, seqs)
        ratio = torch.exp(logp - old_logp)
        a = adv[:, None]
        loss = -torch.min(ratio * a, ratio.clamp(1 - CLIP, 1 + CLIP) * a).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"iter {it} score {scores.mean():.3f} kl {kl.mean():.4f} loss {loss.item():.4f}")

policy.save_pretrained(os.path.join(workdir, "policy"))
