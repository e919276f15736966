import os
import tempfile

import torch
import torch.nn.functional as F
from peft import LoraConfig, get_peft_model
from peft.tuners.lora import LoraLayer
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

PROMPT_LEN, GEN_LEN, N_PROMPTS, N_SAMPLES = 6, 10, 4, 4
cfg = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                  bos_token_id=0, eos_token_id=1, pad_token_id=1)
base = LlamaForCausalLM(cfg).to(torch.bfloat16)
lora_cfg = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj", "o_proj"], lora_dropout=0.0)
policy = get_peft_model(base, lora_cfg)
opt = torch.optim.AdamW([p for p in policy.parameters() if p.requires_grad], lr=2e-3)


def reward(resp):
    toks = resp.tolist()
    return sum(t % 3 == 0 for t in toks) / len(toks)


def response_nll(model, seqs):
    logits = model(input_ids=seqs).logits[:, PROMPT_LEN - 1:-1].float()
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), seqs[:, PROMPT_LEN:].reshape(-1))


for rnd in range(2):
    prompts = torch.randint(2, cfg.vocab_size, (N_PROMPTS, PROMPT_LEN)).repeat_interleave(N_SAMPLES, 0)
    with torch.no_grad():
        seqs = policy.generate(input_ids=prompts, attention_mask=torch.ones_like(prompts), do_sample=True,
                               max_new_tokens=GEN_LEN, min_new_tokens=GEN_LEN, top_k=0)
    scores = torch.tensor([reward(s[PROMPT_LEN:]) for s in seqs]).view(N_PROMPTS, N_SAMPLES)
    best = seqs.view(N_PROMPTS, N_SAMPLES, -1)[torch.arange(N_PROMPTS), scores.argmax(1)]
    for _ in range(2):
        loss = response_nll(policy, best)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"round {rnd} best-of-{N_SAMPLES} reward {scores.max(1).values.mean():.3f} sft loss {loss.item():.4f}")


@torch.no_grad()
def merge_lora(peft_model, adapter="default"):
    for name, module in peft_model.named_modules():
        if isinstance(module, LoraLayer) and adapter in module.lora_A:
            w = module.base_layer.weight
            w.addmm_(module.lora_B[adapter].weight, module.lora_A[adapter].weight,
                     alpha=module.scaling[adapter])
    return peft_model.get_base_model()


merged = merge_lora(policy)
export_dir = os.path.join(tempfile.mkdtemp(), "policy-merged")
merged.save_pretrained(export_dir)
print(f"exported to {export_dir}")
