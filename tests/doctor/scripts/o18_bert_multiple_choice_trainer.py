import math
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from transformers import (BertConfig, BertForMultipleChoice, Trainer, TrainerCallback, TrainingArguments)

torch.manual_seed(0)

VOCAB, N_CHOICES, LEN = 300, 3, 16
CLS, SEP, PAD = 2, 3, 0


def build_examples(n, seed):
    g = np.random.default_rng(seed)
    examples = []
    for _ in range(n):
        question = g.integers(10, VOCAB, size=g.integers(3, 7)).tolist()
        answer = int(g.integers(N_CHOICES))
        choices = []
        for c in range(N_CHOICES):
            opt = g.integers(10, VOCAB, size=g.integers(2, 5)).tolist()
            if c == answer:
                opt[0] = question[-1]
            choices.append(opt)
        examples.append({"question": question, "choices": choices, "label": answer})
    return examples


def mc_collator(features):
    ids = torch.full((len(features), N_CHOICES, LEN), PAD, dtype=torch.long)
    types = torch.zeros_like(ids)
    for i, f in enumerate(features):
        for c, opt in enumerate(f["choices"]):
            seq = ([CLS] + f["question"] + [SEP] + opt + [SEP])[:LEN]
            ids[i, c, : len(seq)] = torch.tensor(seq)
            types[i, c, len(f["question"]) + 2: len(seq)] = 1
    return {
        "input_ids": ids,
        "token_type_ids": types,
        "attention_mask": (ids != PAD).long(),
        "labels": torch.tensor([f["label"] for f in features], dtype=torch.long),
    }


class SmoothedMCTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = F.cross_entropy(outputs.logits.float(), labels, label_smoothing=0.05)
        return (loss, outputs) if return_outputs else loss


class FiniteLossCallback(TrainerCallback):
    def __init__(self):
        self.history = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            self.history.append(float(logs["loss"]))
            if not math.isfinite(self.history[-1]):
                control.should_training_stop = True


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((logits.argmax(-1) == labels).mean())}


config = BertConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=LEN, type_vocab_size=2,
)
model = BertForMultipleChoice(config)
callback = FiniteLossCallback()
args = TrainingArguments(
    output_dir=tempfile.mkdtemp(),
    per_device_train_batch_size=16,
    per_device_eval_batch_size=32,
    num_train_epochs=4,
    learning_rate=1e-3,
    warmup_steps=3,
    logging_steps=4,
    eval_strategy="epoch",
    save_strategy="no",
    report_to=[],
    remove_unused_columns=False,
    bf16=True,
    use_cpu=True,
)
trainer = SmoothedMCTrainer(
    model=model, args=args, data_collator=mc_collator,
    train_dataset=build_examples(192, 0), eval_dataset=build_examples(64, 1),
    compute_metrics=compute_metrics, callbacks=[callback],
)
trainer.train()
metrics = trainer.evaluate()
print("logged losses:", [round(x, 4) for x in callback.history])
print({k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)})
assert all(math.isfinite(x) for x in callback.history) and math.isfinite(metrics["eval_loss"])
