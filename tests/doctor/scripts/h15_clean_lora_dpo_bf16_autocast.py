"""DPO with LoRA adapters on a tiny Llama model, bf16 autocast over fp32 weights.

Reference log-probs come from the same model with the adapter disabled. Log-probs
are gathered from fp32 log_softmax; the adapter is saved with safetensors at the end
and reloaded to check the round trip.
"""
import os
import random
import tempfile

import torch
import torch.nn.functional as F
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
random.seed(0)

VOCAB = 160
PAD = 0
BETA = 0.1
BATCH = 4
STEPS = 8
PROMPT_LEN = 6
RESP_LEN = 6
AMP = dict(device_type="cpu", dtype=torch.bfloat16)


def make_example():
    prompt = [random.randint(3, VOCAB - 1) for _ in range(PROMPT_LEN)]
    chosen = sorted(random.sample(range(3, VOCAB), RESP_LEN))
    rejected = [random.randint(3, VOCAB - 1) for _ in range(RESP_LEN)]
    return prompt, chosen, rejected


def collate(examples):
    seqs = [ex[0] + ex[which] for which in (1, 2) for ex in examples]
    ids = torch.tensor(seqs, dtype=torch.long)
    attn = torch.ones_like(ids)
    resp_mask = torch.zeros_like(ids, dtype=torch.bool)
    resp_mask[:, PROMPT_LEN:] = True
    return ids, attn, resp_mask


def sequence_logps(model, ids, attn, resp_mask):
    with torch.autocast(**AMP):
        logits = model(input_ids=ids, attention_mask=attn).logits
    logp = logits[:, :-1].float().log_softmax(-1)
    tok = torch.gather(logp, 2, ids[:, 1:, None]).squeeze(-1)
    mask = resp_mask[:, 1:]
    return (tok * mask).sum(-1)


def main():
    cfg = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        pad_token_id=PAD,
    )
    base = LlamaForCausalLM(cfg)
    model = get_peft_model(base, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    data = [make_example() for _ in range(BATCH * STEPS)]

    for step in range(STEPS):
        ids, attn, resp_mask = collate(data[step * BATCH : (step + 1) * BATCH])
        logps = sequence_logps(model, ids, attn, resp_mask)
        with torch.no_grad(), model.disable_adapter():
            ref_logps = sequence_logps(model, ids, attn, resp_mask)
        chosen_r = logps[:BATCH] - ref_logps[:BATCH]
        rejected_r = logps[BATCH:] - ref_logps[BATCH:]
        loss = -F.logsigmoid(BETA * (chosen_r - rejected_r)).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"step {step} loss {loss.item():.4f} margin {(chosen_r - rejected_r).mean().item():.4f}")

    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d)
        assert os.path.exists(os.path.join(d, "adapter_model.safetensors"))
        reloaded = PeftModel.from_pretrained(LlamaForCausalLM(cfg), d)
        reloaded.base_model.model.load_state_dict(
            {k: v for k, v in base.state_dict().items() if "lora" not in k}, strict=False
        )
        ids, attn, resp_mask = collate(data[:BATCH])
        with torch.no_grad():
            a = sequence_logps(model, ids, attn, resp_mask)
            b = sequence_logps(reloaded, ids, attn, resp_mask)
        print("reload max diff", (a - b).abs().max().item())
    print("done")


if __name__ == "__main__":
    main()
