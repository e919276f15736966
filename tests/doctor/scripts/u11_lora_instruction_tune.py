"""LoRA fine-tuning of a tiny randomly initialised Llama (bf16 base weights) with PEFT."""
import torch
from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=4, vocab_size=256, max_position_embeddings=128)
base = LlamaForCausalLM(cfg).to(torch.bfloat16)
lora_cfg = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, target_modules=["q_proj", "v_proj", "o_proj"],
                      task_type="CAUSAL_LM")
model = get_peft_model(base, lora_cfg)
model.print_trainable_parameters()

opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
PAD = 0
for step in range(5):
    ids = torch.randint(1, cfg.vocab_size, (4, 24))
    attn = torch.ones_like(ids)
    ids[1, 18:] = PAD
    attn[1, 18:] = 0
    labels = ids.masked_fill(attn == 0, -100)
    labels[:, :8] = -100  # do not train on the prompt part
    out = model(input_ids=ids, attention_mask=attn, labels=labels)
    opt.zero_grad()
    out.loss.backward()
    opt.step()
    print(f"step {step} loss {out.loss.item():.4f}")

model.eval()
with torch.no_grad():
    gen = model.generate(input_ids=torch.randint(1, cfg.vocab_size, (1, 6)), max_new_tokens=8, do_sample=False,
                         pad_token_id=PAD)
print("generated:", gen.tolist())
assert torch.isfinite(out.loss)
