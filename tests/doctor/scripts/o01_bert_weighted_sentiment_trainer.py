import tempfile

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB, SEQ, N_TRAIN, N_EVAL = 400, 24, 96, 32


class ReviewDataset(Dataset):
    """Synthetic imbalanced 3-way sentiment data (neg / neutral / pos)."""

    def __init__(self, n, seed):
        g = np.random.default_rng(seed)
        self.labels = g.choice(3, size=n, p=[0.6, 0.3, 0.1])
        self.ids = g.integers(5, VOCAB, size=(n, SEQ))
        # plant a label-dependent marker token so the task is learnable
        self.ids[:, 1] = 10 + self.labels
        self.lengths = g.integers(SEQ // 2, SEQ + 1, size=n)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        ids = self.ids[i].copy()
        mask = np.ones(SEQ, dtype=np.int64)
        ids[self.lengths[i]:] = 0
        mask[self.lengths[i]:] = 0
        ids[0] = 2
        return {
            "input_ids": torch.tensor(ids, dtype=torch.long),
            "attention_mask": torch.tensor(mask),
            "labels": torch.tensor(int(self.labels[i])),
        }


train_ds = ReviewDataset(N_TRAIN, 1)
eval_ds = ReviewDataset(N_EVAL, 2)

counts = np.bincount(train_ds.labels, minlength=3)
class_weights = torch.tensor(counts.sum() / (3.0 * np.maximum(counts, 1)))
print("class counts:", counts.tolist(), "weights:", [round(w, 3) for w in class_weights.tolist()])


class WeightedTrainer(Trainer):
    def __init__(self, *args, class_weights=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits
        loss_fct = nn.CrossEntropyLoss(weight=self.class_weights.to(logits.device))
        loss = loss_fct(logits.view(-1, model.config.num_labels), labels.view(-1))
        return (loss, outputs) if return_outputs else loss


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    preds = logits.argmax(-1)
    acc = float((preds == labels).mean())
    recalls = [float((preds[labels == c] == c).mean()) for c in range(3) if (labels == c).any()]
    return {"accuracy": acc, "balanced_accuracy": float(np.mean(recalls))}


config = BertConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=64, num_labels=3,
)
model = BertForSequenceClassification(config)

out_dir = tempfile.mkdtemp()
args = TrainingArguments(
    output_dir=out_dir,
    per_device_train_batch_size=16,
    per_device_eval_batch_size=16,
    num_train_epochs=2,
    learning_rate=5e-4,
    logging_steps=4,
    eval_strategy="epoch",
    save_strategy="no",
    report_to=[],
    bf16=True,
    use_cpu=True,
    dataloader_num_workers=0,
)

trainer = WeightedTrainer(
    model=model,
    args=args,
    train_dataset=train_ds,
    eval_dataset=eval_ds,
    compute_metrics=compute_metrics,
    class_weights=class_weights,
)
result = trainer.train()
print("train loss:", result.training_loss)
metrics = trainer.evaluate()
print({k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)})
