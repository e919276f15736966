"""AdaLoRA on a tiny BERT token classifier, trained with bf16 autocast on the CPU."""
import torch
import torch.nn.functional as F
from transformers import BertConfig, BertForTokenClassification
from peft import AdaLoraConfig, TaskType, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ, N_TAGS, BS, STEPS = 160, 20, 4, 32, 80

config = BertConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=64, num_labels=N_TAGS,
)
base = BertForTokenClassification(config)

cfg = AdaLoraConfig(
    task_type=TaskType.TOKEN_CLS, init_r=12, target_r=4, tinit=10, tfinal=20, deltaT=5,
    total_step=STEPS, lora_alpha=16, lora_dropout=0.05,
    target_modules=["query", "key", "value", "attention.output.dense"],
    modules_to_save=["classifier"],
)
model = get_peft_model(base, cfg)
model.print_trainable_parameters()


def batch(n):
    """Tag = token id bucket, except tokens right after the marker 3 get tag 3."""
    lengths = torch.randint(8, SEQ + 1, (n,))
    ids = torch.randint(4, VOCAB, (n, SEQ))
    marker = torch.rand(n, SEQ) < 0.15
    ids = torch.where(marker, torch.full_like(ids, 3), ids)
    tags = (ids * 3) // VOCAB
    after_marker = torch.zeros_like(marker)
    after_marker[:, 1:] = marker[:, :-1]
    tags = torch.where(after_marker, torch.full_like(tags, 3), tags)
    mask = (torch.arange(SEQ)[None] < lengths[:, None]).long()
    tags = tags.masked_fill(mask == 0, -100)
    return ids * mask, mask, tags


params = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(params, lr=3e-3, weight_decay=0.01)

for step in range(STEPS):
    model.train()
    ids, mask, tags = batch(BS)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(input_ids=ids, attention_mask=mask).logits
    loss = F.cross_entropy(logits.float().view(-1, N_TAGS), tags.view(-1), ignore_index=-100)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    model.base_model.update_and_allocate(step)
    opt.zero_grad(set_to_none=True)
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    ids, mask, tags = batch(128)
    logits = model(input_ids=ids, attention_mask=mask).logits
logits = logits.float()
valid = tags != -100
val_loss = F.cross_entropy(logits[valid], tags[valid]).item()
acc = (logits.argmax(-1)[valid] == tags[valid]).float().mean().item()
ranks = {n: sum(v) for n, v in (model.peft_config["default"].rank_pattern or {}).items()}
print(f"val loss {val_loss:.4f} token acc {acc:.3f} final ranks (first 3): {list(ranks.values())[:3]}")
