"""Imbalanced 3-way sentence classification with HF Trainer and a class-weighted
loss, saved with save_model (safetensors) and reloaded in bf16 for batch scoring."""
import os
import random
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from datasets import Dataset
from transformers import (AutoModelForSequenceClassification, RobertaConfig,
                          RobertaForSequenceClassification, Trainer, TrainingArguments)

torch.manual_seed(0)
random.seed(0)
VOCAB, SEQ = 150, 20
CUE = {0: range(10, 25), 1: range(25, 40), 2: range(40, 55)}
PRIORS = [0.7, 0.2, 0.1]


def examples(n):
    rows = {"input_ids": [], "attention_mask": [], "labels": []}
    for _ in range(n):
        lab = random.choices([0, 1, 2], PRIORS)[0]
        body = [random.choice(CUE[lab]) if random.random() < 0.35 else random.randint(55, VOCAB - 1)
                for _ in range(SEQ - 2)]
        rows["input_ids"].append([0] + body + [2])
        rows["attention_mask"].append([1] * SEQ)
        rows["labels"].append(lab)
    return Dataset.from_dict(rows)


class WeightedTrainer(Trainer):
    def __init__(self, *a, class_weights=None, **kw):
        super().__init__(*a, **kw)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits
        w = self.class_weights.to(device=logits.device, dtype=logits.dtype)
        loss = F.cross_entropy(logits, labels, weight=w)
        return (loss, outputs) if return_outputs else loss


def accuracy(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((np.argmax(logits, -1) == labels).mean())}


def main():
    cfg = RobertaConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=SEQ + 4, num_labels=3,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2)
    model = RobertaForSequenceClassification(cfg)
    train_ds, eval_ds = examples(300), examples(90)
    counts = np.bincount(train_ds["labels"], minlength=3)
    class_weights = torch.tensor(len(train_ds) / (3 * np.maximum(counts, 1)), dtype=torch.float32)
    print("class counts", counts.tolist(), "weights", [round(w, 2) for w in class_weights.tolist()])

    with tempfile.TemporaryDirectory() as tmp:
        args = TrainingArguments(output_dir=os.path.join(tmp, "run"), per_device_train_batch_size=16,
                                 per_device_eval_batch_size=32, num_train_epochs=8, learning_rate=2e-3,
                                 logging_steps=10, eval_strategy="epoch", save_strategy="no",
                                 report_to=[], use_cpu=True, disable_tqdm=True, seed=0)
        trainer = WeightedTrainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                                  compute_metrics=accuracy, class_weights=class_weights)
        trainer.train()
        export = os.path.join(tmp, "export")
        trainer.save_model(export)

        scorer = AutoModelForSequenceClassification.from_pretrained(export, dtype=torch.bfloat16).eval()
        assert all(p.dtype == torch.bfloat16 for p in scorer.parameters())
        batch = eval_ds.with_format("torch")[:]
        with torch.no_grad():
            logits = scorer(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits.float()
        acc_bf16 = (logits.argmax(-1) == batch["labels"]).float().mean().item()
        print(f"bf16 reloaded accuracy: {acc_bf16:.3f}")


if __name__ == "__main__":
    main()
