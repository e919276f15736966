import tempfile

import torch
import torch.nn.functional as F
from torch.utils.data import Dataset
from transformers import LlamaConfig, LlamaForSequenceClassification, Trainer, TrainingArguments

torch.manual_seed(0)

VOCAB, SEQ = 128, 24


class PairDataset(Dataset):
    def __init__(self, n):
        self.chosen = torch.randint(2, VOCAB, (n, SEQ))
        self.rejected = torch.randint(2, VOCAB, (n, SEQ))
        self.chosen[:, -5:] = torch.randint(2, 20, (n, 5))
        self.rejected[:, -5:] = torch.randint(100, VOCAB, (n, 5))
        lengths = torch.randint(SEQ // 2, SEQ + 1, (n,))
        self.mask = (torch.arange(SEQ)[None] >= SEQ - lengths[:, None]).long()

    def __len__(self):
        return len(self.chosen)

    def __getitem__(self, i):
        return {"chosen_ids": self.chosen[i], "rejected_ids": self.rejected[i], "attention_mask": self.mask[i]}


class RewardTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        ids = torch.cat([inputs["chosen_ids"], inputs["rejected_ids"]])
        mask = torch.cat([inputs["attention_mask"], inputs["attention_mask"]])
        rewards = model(input_ids=ids, attention_mask=mask).logits.squeeze(-1).float()
        r_c, r_r = rewards.chunk(2)
        loss = -F.logsigmoid(r_c - r_r).mean()
        return (loss, {"margin": r_c - r_r}) if return_outputs else loss


cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                  num_labels=1, pad_token_id=0, bos_token_id=1, eos_token_id=1)
model = LlamaForSequenceClassification(cfg)

out_dir = tempfile.mkdtemp()
args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=16, num_train_epochs=1,
                         learning_rate=1e-3, logging_steps=1, bf16=True, use_cpu=True, report_to=[],
                         save_strategy="no", remove_unused_columns=False, dataloader_num_workers=0)
trainer = RewardTrainer(model=model, args=args, train_dataset=PairDataset(96))
result = trainer.train()
print(f"train loss {result.training_loss:.4f}")

model.eval()
evalset = PairDataset(32)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    r_c = model(input_ids=evalset.chosen, attention_mask=evalset.mask).logits.squeeze(-1).float()
    r_r = model(input_ids=evalset.rejected, attention_mask=evalset.mask).logits.squeeze(-1).float()
eval_loss = -F.logsigmoid(r_c - r_r).mean()
print(f"eval loss {eval_loss.item():.4f} acc {(r_c > r_r).float().mean().item():.3f}")
trainer.save_model(out_dir)
