"""rsLoRA fine-tuning of a tiny Qwen2 with an EMA copy of the model used for evaluation."""
import copy

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ, BS = 320, 48, 16

config = Qwen2Config(
    vocab_size=VOCAB, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
    tie_word_embeddings=True,
)
base = Qwen2ForCausalLM(config)

lora_cfg = LoraConfig(
    r=16, lora_alpha=16, use_rslora=True, lora_dropout=0.05,
    target_modules="all-linear", task_type="CAUSAL_LM",
)
model = get_peft_model(base, lora_cfg)
model.print_trainable_parameters()


def sample_batch(bs):
    # copy task: first half random, second half repeats it
    half = torch.randint(3, VOCAB, (bs, SEQ // 2))
    ids = torch.cat([half, half], dim=1)
    labels = ids.clone()
    labels[:, : SEQ // 2] = -100
    return ids, labels


class EMA:
    def __init__(self, model, decay=0.99):
        self.decay = decay
        self.shadow = copy.deepcopy(model).to(torch.bfloat16).eval()
        self.names = [n for n, p in model.named_parameters() if p.requires_grad]
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        src = dict(model.named_parameters())
        dst = dict(self.shadow.named_parameters())
        torch._foreach_lerp_([dst[n] for n in self.names], [src[n].detach() for n in self.names], 1.0 - self.decay)


ema = EMA(model)
params = [p for p in model.parameters() if p.requires_grad]
optim = torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.95), weight_decay=0.0)
warmup = 10
sched = torch.optim.lr_scheduler.LambdaLR(optim, lambda s: min(1.0, (s + 1) / warmup))

for step in range(60):
    model.train()
    ids, labels = sample_batch(BS)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(input_ids=ids).logits
    loss = torch.nn.functional.cross_entropy(
        logits[:, :-1].float().reshape(-1, VOCAB), labels[:, 1:].reshape(-1), ignore_index=-100
    )
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optim.step()
    sched.step()
    optim.zero_grad(set_to_none=True)
    ema.update(model)

    if step % 20 == 0:
        with torch.no_grad():
            ids, labels = sample_batch(32)
            ema_logits = ema.shadow(input_ids=ids).logits.float()
            ema_loss = torch.nn.functional.cross_entropy(
                ema_logits[:, :-1].reshape(-1, VOCAB), labels[:, 1:].reshape(-1), ignore_index=-100
            )
        print(f"step {step} loss {loss.item():.4f} ema_loss {ema_loss.item():.4f}")
