import math
import tempfile
import torch
from datasets import Dataset
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    Trainer,
    TrainingArguments,
)
from transformers.utils import logging

logging.set_verbosity_error()
torch.manual_seed(0)

VOCAB, SEQ, N_LABELS = 80, 16, 4


def build_task(task_id, n=192):
    g = torch.Generator().manual_seed(task_id)
    labels = torch.randint(0, N_LABELS, (n,), generator=g)
    offset = 10 + task_id * 30
    ids = offset + labels[:, None] * 6 + torch.randint(0, 6, (n, SEQ), generator=g)
    ids[:, 0] = 2
    return Dataset.from_dict({
        "input_ids": ids.tolist(),
        "attention_mask": torch.ones(n, SEQ, dtype=torch.long).tolist(),
        "labels": labels.tolist(),
    }).with_format("torch")


def accuracy(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((logits.argmax(-1) == labels).mean())}


config = BertConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=SEQ, num_labels=N_LABELS,
)
model = BertForSequenceClassification(config)
tasks = [build_task(0), build_task(1)]
history = []

with tempfile.TemporaryDirectory() as out_dir:
    for t, train_ds in enumerate(tasks):
        args = TrainingArguments(
            output_dir=f"{out_dir}/task{t}",
            per_device_train_batch_size=32,
            per_device_eval_batch_size=64,
            num_train_epochs=3,
            learning_rate=2e-3,
            warmup_steps=5,
            weight_decay=0.01,
            bf16=True,
            use_cpu=True,
            logging_steps=8,
            save_strategy="no",
            report_to=[],
            disable_tqdm=True,
            seed=t,
        )
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, compute_metrics=accuracy)
        result = trainer.train()
        print(f"task {t}: train loss {result.training_loss:.4f}")
        for s, eval_ds in enumerate(tasks[: t + 1]):
            metrics = trainer.evaluate(eval_ds)
            history.append((t, s, metrics["eval_loss"], metrics["eval_accuracy"]))
            print(f"  eval on task {s}: loss {metrics['eval_loss']:.4f}  acc {metrics['eval_accuracy']:.3f}")

assert all(math.isfinite(h[2]) for h in history)
print(f"parameter dtype after training: {next(model.parameters()).dtype}")
