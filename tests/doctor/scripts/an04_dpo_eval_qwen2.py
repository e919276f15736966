import copy
import tempfile

import torch
import torch.nn.functional as F
from transformers import Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)

VOCAB, PROMPT_LEN, RESP_LEN = 128, 8, 32
BETA = 0.5

cfg = Qwen2Config(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
policy = Qwen2ForCausalLM(cfg)
ref = copy.deepcopy(policy).eval().requires_grad_(False)


def make_pairs(n, flip_frac=0.0):
    prompts = torch.randint(0, VOCAB, (n, PROMPT_LEN))
    good = torch.randint(0, VOCAB // 2, (n, RESP_LEN)) * 2
    bad = torch.randint(0, VOCAB // 2, (n, RESP_LEN)) * 2 + 1
    flip = torch.rand(n) < flip_frac
    chosen = torch.where(flip[:, None], bad, good)
    rejected = torch.where(flip[:, None], good, bad)
    return torch.cat([prompts, chosen], 1), torch.cat([prompts, rejected], 1)


def seq_logp(model, ids):
    logits = model(ids).logits[:, PROMPT_LEN - 1:-1]
    logp = logits.log_softmax(-1).gather(-1, ids[:, PROMPT_LEN:, None]).squeeze(-1)
    return logp.sum(-1)


def dpo_loss(pc, pr, rc, rr):
    margin = BETA * ((pc - rc) - (pr - rr))
    return -torch.log(torch.sigmoid(margin)).mean(), margin


train_c, train_r = make_pairs(64)
eval_c, eval_r = make_pairs(32, flip_frac=0.15)
opt = torch.optim.AdamW(policy.parameters(), lr=3e-3)

for step in range(30):
    idx = torch.randint(0, 64, (16,))
    c, r = train_c[idx], train_r[idx]
    with torch.no_grad():
        rc, rr = seq_logp(ref, c), seq_logp(ref, r)
    loss, margin = dpo_loss(seq_logp(policy, c), seq_logp(policy, r), rc, rr)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 6 == 0:
        print(f"step {step} train loss {loss.item():.4f} margin {margin.mean().item():.3f}")

policy.eval().half()
ref.half()
with torch.no_grad():
    pc, pr = seq_logp(policy, eval_c), seq_logp(policy, eval_r)
    rc, rr = seq_logp(ref, eval_c), seq_logp(ref, eval_r)
    eval_loss, margin = dpo_loss(pc, pr, rc, rr)
acc = (margin > 0).float().mean()
print(f"eval loss {eval_loss.item():.4f} reward acc {acc.item():.3f} min margin {margin.float().min().item():.3f}")

with tempfile.TemporaryDirectory() as d:
    policy.save_pretrained(d)
