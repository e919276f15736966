"""DoRA on a tiny Llama with bf16 autocast; check merge / unmerge round trips and export a merged model."""
import os
import tempfile

import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ, BS = 128, 32, 16

config = LlamaConfig(
    vocab_size=VOCAB, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
)
base = LlamaForCausalLM(config)
cfg = LoraConfig(
    r=8, lora_alpha=16, use_dora=True, lora_dropout=0.0, task_type="CAUSAL_LM",
    target_modules=["q_proj", "v_proj", "gate_proj", "up_proj", "down_proj"],
)
model = get_peft_model(base, cfg)
model.print_trainable_parameters()


def batch(n):
    """Fibonacci-like sequences mod VOCAB from two random seeds."""
    seq = torch.zeros(n, SEQ, dtype=torch.long)
    seq[:, :2] = torch.randint(0, VOCAB, (n, 2))
    for i in range(2, SEQ):
        seq[:, i] = (seq[:, i - 1] + seq[:, i - 2]) % VOCAB
    return seq


def lm_loss(logits, ids):
    return F.cross_entropy(logits[:, :-1].float().reshape(-1, VOCAB), ids[:, 1:].reshape(-1))


opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=60)
for step in range(60):
    model.train()
    ids = batch(BS)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(input_ids=ids).logits
    loss = lm_loss(logits, ids)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
ids = batch(8)
with torch.no_grad():
    ref = model(input_ids=ids).logits
    model.merge_adapter()
    merged = model(input_ids=ids).logits
    model.unmerge_adapter()
    unmerged = model(input_ids=ids).logits
    with model.disable_adapter():
        plain = model(input_ids=ids).logits
print(f"merge diff {(ref - merged).abs().max().item():.2e}  unmerge diff {(ref - unmerged).abs().max().item():.2e}"
      f"  adapter effect {(ref - plain).abs().max().item():.2e}")

export = model.merge_and_unload()
out_dir = os.path.join(tempfile.mkdtemp(), "merged")
export.save_pretrained(out_dir)
reloaded = LlamaForCausalLM.from_pretrained(out_dir, dtype=torch.bfloat16).eval()
with torch.no_grad():
    ids = batch(32)
    l32 = lm_loss(export(input_ids=ids).logits, ids).item()
    l16 = lm_loss(reloaded(input_ids=ids).logits, ids).item()
print(f"merged fp32 loss {l32:.4f}  reloaded bf16 loss {l16:.4f}")
