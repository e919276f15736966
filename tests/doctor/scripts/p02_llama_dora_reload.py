"""Train a DoRA adapter on a tiny Llama, save base + adapter, reload them quickly and evaluate."""
import math
import os
import tempfile

import torch
from safetensors.torch import load_file
from transformers import LlamaConfig, LlamaForCausalLM
from peft import LoraConfig, PeftModel, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ = 256, 32

config = LlamaConfig(
    vocab_size=VOCAB, hidden_size=64, intermediate_size=172, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
)


def batch(n):
    # arithmetic progressions mod VOCAB: next token is predictable from the previous two
    start = torch.randint(0, VOCAB, (n, 1))
    step = torch.randint(1, 7, (n, 1))
    return (start + step * torch.arange(SEQ)) % VOCAB


workdir = tempfile.mkdtemp()
base_dir = os.path.join(workdir, "base")
adapter_dir = os.path.join(workdir, "adapter")

base = LlamaForCausalLM(config)
base.save_pretrained(base_dir)

peft_cfg = LoraConfig(
    r=8, lora_alpha=16, use_dora=True, lora_dropout=0.0,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj"],
    task_type="CAUSAL_LM",
)
model = get_peft_model(base, peft_cfg)
optim = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)

model.train()
for step in range(40):
    ids = batch(16)
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optim.step()
    optim.zero_grad()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.save_pretrained(adapter_dir)
del model, base

# --- reload for evaluation without initialising the weights twice ---
with torch.device("meta"):
    eval_base = LlamaForCausalLM(config)
state = load_file(os.path.join(base_dir, "model.safetensors"))
missing, unexpected = eval_base.load_state_dict(state, strict=False, assign=True)
print("missing:", missing, "unexpected:", unexpected)

eval_model = PeftModel.from_pretrained(eval_base, adapter_dir)
eval_model.eval()

torch.manual_seed(123)
nll, count = 0.0, 0
with torch.no_grad():
    for _ in range(4):
        ids = batch(32)
        out = eval_model(input_ids=ids, labels=ids)
        nll += out.loss.item() * ids.numel()
        count += ids.numel()
print(f"eval loss {nll / count:.4f} ppl {math.exp(nll / count):.2f}")
