"""DPO with LoRA on a tiny Qwen2 model, all in fp16.

Only the LoRA adapters are trained; the reference log-probs come from the same
model with the adapter switched off (peft's disable_adapter context manager), so no
second copy of the weights is needed.
"""
import random

import torch
import torch.nn.functional as F
from peft import LoraConfig, get_peft_model
from transformers import Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)
random.seed(0)

VOCAB = 200
BETA = 0.1
BATCH = 4
STEPS = 6
PROMPT_LEN = 6
RESP_LEN = 8


def make_batch():
    chosen, rejected = [], []
    for _ in range(BATCH):
        prompt = [random.randint(2, VOCAB - 1) for _ in range(PROMPT_LEN)]
        chosen.append(prompt + [prompt[i % PROMPT_LEN] for i in range(RESP_LEN)])
        rejected.append(prompt + [random.randint(2, VOCAB - 1) for _ in range(RESP_LEN)])
    return torch.tensor(chosen + rejected)


def response_logps(model, ids):
    logits = model(input_ids=ids).logits[:, PROMPT_LEN - 1 : -1]
    logp = torch.gather(logits.log_softmax(-1), 2, ids[:, PROMPT_LEN:, None]).squeeze(-1)
    return logp.sum(-1)


def main():
    cfg = Qwen2Config(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    base = Qwen2ForCausalLM(cfg)
    lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj", "o_proj"])
    model = get_peft_model(base, lora)
    model.half()  # serve and train in fp16
    model.print_trainable_parameters()

    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=5e-4)

    for step in range(STEPS):
        ids = make_batch()
        logps = response_logps(model, ids)
        with torch.no_grad(), model.disable_adapter():
            ref_logps = response_logps(model, ids)
        pi = logps[:BATCH] - logps[BATCH:]
        ref = ref_logps[:BATCH] - ref_logps[BATCH:]
        loss = -F.logsigmoid(BETA * (pi - ref)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = ((logps[:BATCH] - ref_logps[:BATCH]) > (logps[BATCH:] - ref_logps[BATCH:])).float().mean()
        print(f"step {step} loss {loss.item():.4f} reward_acc {acc.item():.2f}")
    print("done")


if __name__ == "__main__":
    main()
