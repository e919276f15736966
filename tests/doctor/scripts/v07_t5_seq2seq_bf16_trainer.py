import math
import os
import random
import tempfile

import numpy as np
import torch
from datasets import Dataset
from transformers import Seq2SeqTrainer, Seq2SeqTrainingArguments, T5Config, T5ForConditionalGeneration

random.seed(7)
torch.manual_seed(7)
workdir = tempfile.mkdtemp()
PAD, EOS, VOCAB = 0, 1, 128


def example():
    src = [random.randint(3, VOCAB - 1) for _ in range(random.randint(4, 14))]
    return {"input_ids": src + [EOS], "labels": list(reversed(src)) + [EOS]}


ds = Dataset.from_list([example() for _ in range(192)]).train_test_split(test_size=32, seed=0)


def collate(features):
    src_len = max(len(f["input_ids"]) for f in features)
    tgt_len = max(len(f["labels"]) for f in features)
    input_ids = torch.full((len(features), src_len), PAD, dtype=torch.long)
    labels = torch.full((len(features), tgt_len), -100, dtype=torch.long)
    for i, f in enumerate(features):
        input_ids[i, : len(f["input_ids"])] = torch.tensor(f["input_ids"])
        labels[i, : len(f["labels"])] = torch.tensor(f["labels"])
    return {"input_ids": input_ids, "attention_mask": (input_ids != PAD).long(), "labels": labels}


config = T5Config(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                  num_heads=4, relative_attention_num_buckets=16, dropout_rate=0.0,
                  pad_token_id=PAD, eos_token_id=EOS, decoder_start_token_id=PAD)
model = T5ForConditionalGeneration(config)


def compute_metrics(eval_pred):
    preds, labels = eval_pred
    labels = np.where(labels == -100, PAD, labels)
    width = min(preds.shape[1], labels.shape[1])
    exact = [(p[:width] == l[:width]).all() for p, l in zip(preds, labels)]
    return {"exact_match": float(np.mean(exact))}


args = Seq2SeqTrainingArguments(
    output_dir=os.path.join(workdir, "t5-reverse"),
    per_device_train_batch_size=16,
    per_device_eval_batch_size=32,
    learning_rate=3e-3,
    max_steps=30,
    warmup_steps=3,
    logging_steps=10,
    eval_strategy="no",
    save_strategy="no",
    predict_with_generate=True,
    generation_max_length=20,
    bf16=True,
    use_cpu=True,
    report_to=[],
)
trainer = Seq2SeqTrainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                         data_collator=collate, compute_metrics=compute_metrics)
out = trainer.train()
metrics = trainer.evaluate()
print(f"train loss {out.training_loss:.4f} | eval loss {metrics['eval_loss']:.4f} | "
      f"exact match {metrics['eval_exact_match']:.3f}")
assert math.isfinite(out.training_loss) and math.isfinite(metrics["eval_loss"])
