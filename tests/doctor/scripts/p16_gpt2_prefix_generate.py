"""Prefix tuning of a tiny GPT-2 on a toy 'question -> answer' format, then greedy and sampled generation."""
import torch
import torch.nn.functional as F
from transformers import GPT2Config, GPT2LMHeadModel
from peft import PrefixTuningConfig, TaskType, get_peft_model

torch.manual_seed(0)
VOCAB, BS = 64, 32
BOS, SEP, EOS = 1, 2, 3

config = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                    bos_token_id=BOS, eos_token_id=EOS, pad_token_id=EOS)
base = GPT2LMHeadModel(config)
peft_cfg = PrefixTuningConfig(task_type=TaskType.CAUSAL_LM, num_virtual_tokens=10,
                              prefix_projection=True, encoder_hidden_size=128)
model = get_peft_model(base, peft_cfg)
model.print_trainable_parameters()


def make_batch(n):
    """Answer = the question's tokens sorted ascending."""
    q = torch.randint(8, VOCAB, (n, 6))
    a = q.sort(dim=1).values
    ids = torch.cat([torch.full((n, 1), BOS), q, torch.full((n, 1), SEP), a, torch.full((n, 1), EOS)], dim=1)
    labels = ids.clone()
    labels[:, :8] = -100
    return ids, labels


opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-3)
for step in range(120):
    model.train()
    ids, labels = make_batch(BS)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits
    loss = F.cross_entropy(logits[:, :-1].float().reshape(-1, VOCAB), labels[:, 1:].reshape(-1), ignore_index=-100)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 30 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
ids, _ = make_batch(4)
prompt = ids[:, :8]
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    greedy = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt),
                            max_new_tokens=7, do_sample=False)
    sampled = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt),
                             max_new_tokens=7, do_sample=True, temperature=0.8, top_k=20,
                             output_scores=True, return_dict_in_generate=True)
scores = torch.stack(sampled.scores, dim=1).float()
logp = torch.log_softmax(scores, dim=-1).gather(-1, sampled.sequences[:, 8:, None]).squeeze(-1)
for row in range(2):
    print("question", prompt[row, 1:7].tolist())
    print("  greedy ", greedy[row, 8:].tolist())
    print("  sampled", sampled.sequences[row, 8:].tolist())
print(f"final loss {loss.item():.4f} mean sample logp {logp.mean().item():.3f}")
