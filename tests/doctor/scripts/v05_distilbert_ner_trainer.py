import os
import random
import tempfile

import numpy as np
import torch
from datasets import Dataset
from transformers import DistilBertConfig, DistilBertForTokenClassification, Trainer, TrainingArguments

random.seed(0)
torch.manual_seed(0)
workdir = tempfile.mkdtemp()

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
VOCAB = 400
CLS, SEP, PAD = 1, 2, 0


def synth_sentence():
    n = random.randint(6, 20)
    ids, tags = [], []
    while len(ids) < n:
        r = random.random()
        if r < 0.15:
            ids += [random.randint(100, 199), random.randint(100, 199)]
            tags += [1, 2]
        elif r < 0.25:
            ids += [random.randint(200, 299)]
            tags += [3]
        else:
            ids.append(random.randint(300, VOCAB - 1))
            tags.append(0)
    return {"tokens": [CLS] + ids + [SEP], "ner_tags": [-100] + tags + [-100]}


ds = Dataset.from_list([synth_sentence() for _ in range(160)]).train_test_split(test_size=32, seed=0)


class NerCollator:
    def __init__(self, pad_id=PAD, label_pad=-100, multiple_of=8):
        self.pad_id, self.label_pad, self.multiple_of = pad_id, label_pad, multiple_of

    def __call__(self, features):
        longest = max(len(f["tokens"]) for f in features)
        width = int(np.ceil(longest / self.multiple_of) * self.multiple_of)
        ids = np.full((len(features), width), self.pad_id, dtype=np.int32)
        mask = np.zeros((len(features), width), dtype=np.int32)
        labels = np.full((len(features), width), self.label_pad, dtype=np.int32)
        for i, f in enumerate(features):
            n = len(f["tokens"])
            ids[i, :n] = f["tokens"]
            mask[i, :n] = 1
            labels[i, :n] = f["ner_tags"]
        return {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask),
                "labels": torch.from_numpy(labels)}


config = DistilBertConfig(vocab_size=VOCAB, dim=64, hidden_dim=128, n_layers=2, n_heads=4,
                          max_position_embeddings=64, num_labels=len(LABELS),
                          id2label=dict(enumerate(LABELS)), label2id={l: i for i, l in enumerate(LABELS)})
model = DistilBertForTokenClassification(config)


def compute_metrics(pred):
    preds = pred.predictions.argmax(-1)
    keep = pred.label_ids != -100
    return {"token_acc": float((preds[keep] == pred.label_ids[keep]).mean())}


args = TrainingArguments(
    output_dir=os.path.join(workdir, "ner"),
    per_device_train_batch_size=16,
    per_device_eval_batch_size=32,
    learning_rate=1e-3,
    num_train_epochs=2,
    logging_steps=4,
    eval_strategy="epoch",
    save_strategy="no",
    remove_unused_columns=False,
    bf16=True,
    use_cpu=True,
    report_to=[],
)
trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                  data_collator=NerCollator(), compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
