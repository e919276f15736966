import tempfile

import torch
import torch.nn as nn
from datasets import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments


def layerwise_lr_groups(model, base_lr=2e-3, decay=0.8, weight_decay=0.01):
    n_layers = model.config.num_hidden_layers
    groups = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if name.startswith("bert.embeddings"):
            depth = 0
        elif name.startswith("bert.encoder.layer."):
            depth = int(name.split(".")[3]) + 1
        else:
            depth = n_layers + 1
        lr = base_lr * decay ** (n_layers + 1 - depth)
        wd = 0.0 if name.endswith("bias") or "LayerNorm" in name else weight_decay
        groups.setdefault((lr, wd), []).append(p)
    return [{"params": ps, "lr": lr, "weight_decay": wd} for (lr, wd), ps in groups.items()]


def make_dataset(n, vocab=400, seq=24, n_labels=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, n_labels, (n,), generator=g)
    ids = torch.randint(10, vocab, (n, seq), generator=g)
    ids[:, 1:4] = labels[:, None] + 4
    ids[:, 0] = 2
    return Dataset.from_dict({"input_ids": ids.tolist(), "attention_mask": [[1] * seq] * n,
                              "labels": labels.tolist()})


def main():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=400, hidden_size=64, num_hidden_layers=3, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=32, num_labels=2)
    model = BertForSequenceClassification(config).to(torch.bfloat16)
    model.config.num_labels = 5
    model.num_labels = 5
    model.classifier = nn.Linear(config.hidden_size, 5)
    opt = torch.optim.AdamW(layerwise_lr_groups(model), betas=(0.9, 0.98), eps=1e-6)
    train_ds, eval_ds = make_dataset(256), make_dataset(64, seed=1)
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(output_dir=out, per_device_train_batch_size=32, per_device_eval_batch_size=64,
                                 num_train_epochs=2, logging_steps=4, eval_strategy="epoch", save_strategy="no",
                                 use_cpu=True, report_to=[], warmup_steps=4, disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                          optimizers=(opt, None))
        result = trainer.train()
        metrics = trainer.evaluate()
    print(f"train loss {result.training_loss:.4f}")
    print(f"eval loss {metrics['eval_loss']:.4f}")


if __name__ == "__main__":
    main()
