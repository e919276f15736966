import os
import tempfile

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
workdir = tempfile.mkdtemp()
base_dir = os.path.join(workdir, "base")
adapter_dir = os.path.join(workdir, "adapter")
VOCAB = 160

config = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=128,
                     bos_token_id=1, eos_token_id=2, pad_token_id=0)
LlamaForCausalLM(config).save_pretrained(base_dir)

# ---- fine-tune a LoRA adapter on a copy task, bf16 autocast, fp32 weights ----
model = LlamaForCausalLM.from_pretrained(base_dir)
lora_cfg = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, task_type="CAUSAL_LM",
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
model = get_peft_model(model, lora_cfg)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)

model.train()
for step in range(30):
    half = torch.randint(3, VOCAB, (16, 10))
    ids = torch.cat([torch.ones(16, 1, dtype=torch.long), half, half], dim=1)
    labels = ids.clone()
    labels[:, :11] = -100
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=labels).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 10 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")
model.save_pretrained(adapter_dir)

# ---- reload in fp32, merge, and check the merged model matches the adapter model ----
base = LlamaForCausalLM.from_pretrained(base_dir, dtype=torch.float32)
peft_model = PeftModel.from_pretrained(base, adapter_dir).eval()
probe = torch.randint(3, VOCAB, (2, 21))
with torch.no_grad():
    ref_logits = peft_model(input_ids=probe).logits
merged = peft_model.merge_and_unload()
merged.eval()
with torch.no_grad():
    merged_logits = merged(input_ids=probe).logits
print(f"max |adapter - merged| logit diff: {(ref_logits - merged_logits).abs().max().item():.2e}")
merged.save_pretrained(os.path.join(workdir, "merged"))

gen_cfg = GenerationConfig(max_new_tokens=10, do_sample=False, pad_token_id=0, eos_token_id=2,
                           output_scores=True, return_dict_in_generate=True)
prompt_half = torch.randint(3, VOCAB, (2, 10))
prompt = torch.cat([torch.ones(2, 1, dtype=torch.long), prompt_half], dim=1)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    out = merged.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), generation_config=gen_cfg)
scores = torch.stack(out.scores)
print("prompt :", prompt_half[0].tolist())
print("output :", out.sequences[0, prompt.shape[1]:].tolist())
print("all generation scores finite:", bool(torch.isfinite(scores).all()))
