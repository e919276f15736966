import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import MistralConfig, MistralForCausalLM
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)
VOCAB = 512
config = MistralConfig(
    vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
    sliding_window=32, pad_token_id=0,
)
base = MistralForCausalLM(config).half()
lora_cfg = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj", "o_proj"],
                      task_type="CAUSAL_LM")
model = get_peft_model(base, lora_cfg)
model.print_trainable_parameters()


def make_dataset(n=48, seq=40):
    ids = torch.randint(3, VOCAB, (n, seq))
    ids[:, 2::3] = (ids[:, 0::3][:, : ids[:, 2::3].shape[1]] + 11) % VOCAB
    lengths = torch.randint(20, seq + 1, (n,))
    mask = (torch.arange(seq)[None] < lengths[:, None]).long()
    ids = ids.masked_fill(mask == 0, config.pad_token_id)
    labels = ids.masked_fill(mask == 0, -100)
    return TensorDataset(ids, mask, labels)


loader = DataLoader(make_dataset(), batch_size=8, shuffle=True)
params = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(params, lr=1e-3)
loss_scale = 2.0 ** 20
growth_interval, growth_factor = 2, 2.0

model.train()
step = 0
for epoch in range(2):
    for ids, mask, labels in loader:
        out = model(input_ids=ids, attention_mask=mask, labels=labels)
        loss = out.loss
        opt.zero_grad(set_to_none=True)
        (loss * loss_scale).backward()
        for p in params:
            if p.grad is not None:
                p.grad.div_(loss_scale)
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        if step % growth_interval == 0:
            loss_scale = min(loss_scale * growth_factor, 2.0 ** 24)
        print(f"epoch {epoch} step {step:2d}: loss {loss.item():.4f} scale {loss_scale:.0f}")

model.eval()
with torch.no_grad():
    ids, mask, labels = next(iter(loader))
    eval_loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
print("eval loss after adapter training:", eval_loss.item())
