import os
import tempfile

import torch
from datasets import Dataset
from transformers import LlamaConfig, LlamaForCausalLM, LlamaForSequenceClassification

torch.manual_seed(0)
workdir = tempfile.mkdtemp()
VOCAB, PAD, BOS, EOS = 256, 0, 1, 2

common = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=128,
              pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)
policy_dir, rm_dir = os.path.join(workdir, "policy"), os.path.join(workdir, "rm")
LlamaForCausalLM(LlamaConfig(**common)).save_pretrained(policy_dir)
LlamaForSequenceClassification(LlamaConfig(num_labels=1, **common)).save_pretrained(rm_dir)

policy = LlamaForCausalLM.from_pretrained(policy_dir, dtype=torch.bfloat16).eval()
reward_model = LlamaForSequenceClassification.from_pretrained(rm_dir, dtype=torch.bfloat16).eval()

prompts = [[BOS] + torch.randint(3, VOCAB, (8,)).tolist() for _ in range(12)]
N_SAMPLES = 4


@torch.no_grad()
def sample_candidates(prompt):
    ids = torch.tensor([prompt] * N_SAMPLES)
    out = policy.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True, top_k=50,
                          temperature=0.9, max_new_tokens=12, pad_token_id=PAD, eos_token_id=EOS)
    return [seq.tolist() for seq in out]


@torch.no_grad()
def score(sequences):
    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), PAD, dtype=torch.long)
    for i, s in enumerate(sequences):
        ids[i, : len(s)] = torch.tensor(s)
    return reward_model(input_ids=ids, attention_mask=(ids != PAD).long()).logits.squeeze(-1)


rows = {"prompt_id": [], "sequence": []}
for pid, prompt in enumerate(prompts):
    for seq in sample_candidates(prompt):
        rows["prompt_id"].append(pid)
        rows["sequence"].append(seq)
candidates = Dataset.from_dict(rows)

rewards = torch.cat([score(candidates[i:i + 16]["sequence"]) for i in range(0, len(candidates), 16)])
print(f"scored {len(candidates)} candidates for {len(prompts)} prompts")

q10, q50, q90 = torch.quantile(rewards, torch.tensor([0.1, 0.5, 0.9])).tolist()
print(f"reward quantiles  p10={q10:.3f}  p50={q50:.3f}  p90={q90:.3f}")

candidates = candidates.add_column("reward", rewards.float().tolist())
keep = candidates.filter(lambda ex: ex["reward"] >= q50)
best_per_prompt = {}
for ex in keep:
    pid = ex["prompt_id"]
    if pid not in best_per_prompt or ex["reward"] > best_per_prompt[pid]["reward"]:
        best_per_prompt[pid] = ex
print(f"kept {len(keep)} candidates, {len(best_per_prompt)} prompts covered for the next SFT round")
