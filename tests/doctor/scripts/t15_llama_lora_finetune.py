"""Correct LoRA fine-tuning of a tiny bf16 Llama with PEFT, then a short generate."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)


def build():
    cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=4, vocab_size=256,
                      max_position_embeddings=128, bos_token_id=1, eos_token_id=2, pad_token_id=0)
    base = LlamaForCausalLM(cfg).to(torch.bfloat16)
    lcfg = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05,
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj"], task_type="CAUSAL_LM")
    model = get_peft_model(base, lcfg)
    model.print_trainable_parameters()
    return model


def main():
    model = build()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    model.train()
    for step in range(5):
        ids = torch.randint(3, 256, (4, 24))
        mask = torch.ones_like(ids)
        mask[:2, -5:] = 0
        labels = ids.masked_fill(mask == 0, -100)
        out = model(input_ids=ids, attention_mask=mask, labels=labels)
        opt.zero_grad()
        out.loss.backward()
        opt.step()
        assert torch.isfinite(out.loss)
        print(f"step {step} loss {out.loss.item():.4f}")

    model.eval()
    prompt = torch.randint(3, 256, (1, 8))
    with torch.no_grad():
        gen = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt),
                             max_new_tokens=10, do_sample=False, pad_token_id=0)
    print("generated:", gen[0, 8:].tolist())


if __name__ == "__main__":
    main()
