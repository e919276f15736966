"""Sentence classification with HF Trainer: a small BERT encoder (saved earlier by a
pretraining job) is loaded in bf16 to save memory and a task head is put on top."""
import os
import random
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import AutoModel, BertConfig, BertModel, Trainer, TrainingArguments

torch.manual_seed(0)
random.seed(0)

VOCAB = 200
POS_TOKENS = list(range(10, 30))   # "positive" words
NEG_TOKENS = list(range(30, 50))   # "negative" words


def make_examples(n, seq=24):
    rows = {"input_ids": [], "attention_mask": [], "labels": []}
    for _ in range(n):
        label = random.randint(0, 1)
        pool = POS_TOKENS if label else NEG_TOKENS
        ids = [1] + [random.choice(pool) if random.random() < 0.3 else random.randint(50, VOCAB - 1) for _ in range(seq - 2)] + [2]
        rows["input_ids"].append(ids)
        rows["attention_mask"].append([1] * seq)
        rows["labels"].append(label)
    return Dataset.from_dict(rows)


class EncoderClassifier(nn.Module):
    def __init__(self, encoder, n_labels=2, dropout=0.1):
        super().__init__()
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.hidden_size, n_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        pooled = (hidden * attention_mask.unsqueeze(-1)).sum(1) / attention_mask.sum(1, keepdim=True)
        logits = self.head(self.dropout(pooled))
        loss = F.cross_entropy(logits.float(), labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        enc_dir = os.path.join(tmp, "tiny-bert-encoder")
        cfg = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=128, max_position_embeddings=64)
        BertModel(cfg).save_pretrained(enc_dir)  # stands in for the pretraining job's output

        encoder = AutoModel.from_pretrained(enc_dir, dtype=torch.bfloat16)
        model = EncoderClassifier(encoder)

        train_ds = make_examples(256).with_format("torch")
        eval_ds = make_examples(64).with_format("torch")

        args = TrainingArguments(
            output_dir=os.path.join(tmp, "out"),
            per_device_train_batch_size=16,
            per_device_eval_batch_size=32,
            num_train_epochs=2,
            learning_rate=5e-4,
            logging_steps=8,
            eval_strategy="epoch",
            save_strategy="no",
            report_to=[],
            use_cpu=True,
            disable_tqdm=True,
        )
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
        trainer.train()
        print(trainer.evaluate())


if __name__ == "__main__":
    main()
