"""Fine-tune a small BERT classifier with LoRA; the classification head is fully trained."""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from transformers import BertConfig, BertForSequenceClassification
from peft import LoraConfig, TaskType, get_peft_model

torch.manual_seed(0)

VOCAB, SEQ, N_LABELS = 200, 24, 3


def make_data(n):
    ids = torch.randint(5, VOCAB, (n, SEQ))
    ids[:, 0] = 2  # [CLS]
    # label: which third of the vocabulary the majority of tokens fall in
    bins = torch.div(ids[:, 1:] - 5, (VOCAB - 5) // 3 + 1, rounding_mode="floor")
    labels = torch.mode(bins, dim=1).values.clamp(max=N_LABELS - 1)
    mask = torch.ones_like(ids)
    lengths = torch.randint(SEQ // 2, SEQ + 1, (n,))
    for i, L in enumerate(lengths):
        mask[i, L:] = 0
        ids[i, L:] = 0
    return TensorDataset(ids, mask, labels)


config = BertConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=64, num_labels=N_LABELS,
)
base = BertForSequenceClassification(config)

lora_cfg = LoraConfig(
    task_type=TaskType.SEQ_CLS,
    r=8,
    lora_alpha=16,
    lora_dropout=0.05,
    target_modules=["query", "key", "value", "dense"],
    modules_to_save=["classifier"],
)
model = get_peft_model(base, lora_cfg)

# the frozen backbone only needs to be read, keep it in bf16 to halve its memory
for name, param in model.named_parameters():
    if not param.requires_grad:
        param.data = param.data.to(torch.bfloat16)

model.print_trainable_parameters()

train_dl = DataLoader(make_data(256), batch_size=32, shuffle=True)
val_dl = DataLoader(make_data(64), batch_size=64)

optim = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.OneCycleLR(optim, max_lr=2e-3, total_steps=3 * len(train_dl))

for epoch in range(3):
    model.train()
    total = 0.0
    for ids, mask, labels in train_dl:
        out = model(input_ids=ids, attention_mask=mask)
        loss = F.cross_entropy(out.logits.float(), labels)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        sched.step()
        total += loss.item()
    model.eval()
    correct = 0
    with torch.no_grad():
        for ids, mask, labels in val_dl:
            logits = model(input_ids=ids, attention_mask=mask).logits
            correct += (logits.argmax(-1) == labels).sum().item()
    print(f"epoch {epoch} train_loss {total / len(train_dl):.4f} val_acc {correct / 64:.3f}")
