import tempfile

import torch
import torch.nn as nn
from datasets import Dataset
from transformers import (BertConfig, BertForTokenClassification, DataCollatorForTokenClassification,
                          Trainer, TrainingArguments)

torch.manual_seed(0)
VOCAB, SEQ_LEN = 500, 24
OLD_LABELS = ["O", "B-PER", "I-PER"]
NEW_LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]


class ToyTokenizer:
    pad_token_id = 0
    padding_side = "right"

    def pad(self, features, padding=True, max_length=None, pad_to_multiple_of=None, return_tensors="pt"):
        n = max(len(f["input_ids"]) for f in features)
        out = {"input_ids": [], "attention_mask": []}
        for f in features:
            k = len(f["input_ids"])
            out["input_ids"].append(f["input_ids"] + [0] * (n - k))
            out["attention_mask"].append([1] * k + [0] * (n - k))
        return {key: torch.tensor(v) for key, v in out.items()}


def make_rows(n, seed):
    g = torch.Generator().manual_seed(seed)
    rows = []
    for _ in range(n):
        k = int(torch.randint(8, SEQ_LEN, (1,), generator=g))
        ids = torch.randint(5, VOCAB, (k,), generator=g)
        labels = torch.where(ids % 11 == 0, (ids % 6) + 1, torch.zeros_like(ids))
        rows.append({"input_ids": ids.tolist(), "labels": labels.tolist()})
    return Dataset.from_list(rows)


config = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=64, num_labels=len(OLD_LABELS))
model = BertForTokenClassification(config)
model = model.half()

model.num_labels = len(NEW_LABELS)
model.config.num_labels = len(NEW_LABELS)
model.config.id2label = dict(enumerate(NEW_LABELS))
model.config.label2id = {l: i for i, l in enumerate(NEW_LABELS)}
model.classifier = nn.Linear(config.hidden_size, len(NEW_LABELS))

train_ds = make_rows(128, 1)
eval_ds = make_rows(32, 2)
collator = DataCollatorForTokenClassification(ToyTokenizer(), label_pad_token_id=-100)

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(
        output_dir=out_dir,
        per_device_train_batch_size=16,
        per_device_eval_batch_size=16,
        num_train_epochs=2,
        learning_rate=5e-4,
        logging_steps=4,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        remove_unused_columns=False,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                      data_collator=collator)
    result = trainer.train()
    print("train loss", result.training_loss)
    metrics = trainer.evaluate()
    print("eval loss", metrics["eval_loss"])
