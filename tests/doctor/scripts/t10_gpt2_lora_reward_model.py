"""Reward-model style fine-tuning: GPT-2 (bf16) + LoRA adapters + scalar value head."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import GPT2Config, GPT2Model
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)


class RewardModel(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.v_head = nn.Linear(backbone.config.n_embd, 1)

    def forward(self, input_ids, attention_mask):
        h = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        last = attention_mask.sum(1) - 1
        pooled = h[torch.arange(h.size(0)), last]
        return self.v_head(pooled).squeeze(-1)


def build():
    cfg = GPT2Config(n_embd=64, n_layer=2, n_head=4, vocab_size=256, n_positions=64,
                     bos_token_id=0, eos_token_id=0)
    base = GPT2Model(cfg).to(torch.bfloat16)
    lora = LoraConfig(r=8, lora_alpha=16, target_modules=["c_attn", "c_proj"], lora_dropout=0.0,
                      fan_in_fan_out=True)
    base = get_peft_model(base, lora)
    return RewardModel(base)


def pairwise_loss(r_chosen, r_rejected):
    return -F.logsigmoid(r_chosen - r_rejected).mean()


model = build()
params = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(params, lr=1e-4)
for step in range(4):
    chosen = torch.randint(0, 256, (4, 20))
    rejected = torch.randint(0, 256, (4, 20))
    mask = torch.ones_like(chosen)
    loss = pairwise_loss(model(chosen, mask), model(rejected, mask))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
