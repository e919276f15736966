import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import (GenerationConfig, Seq2SeqTrainer, Seq2SeqTrainingArguments, T5Config,
                          T5ForConditionalGeneration)

torch.manual_seed(0)

VOCAB, PAD, EOS = 128, 0, 1


class ReverseDataset(Dataset):
    """Source: random token string; target: the same string reversed."""

    def __init__(self, n, seed):
        g = np.random.default_rng(seed)
        self.items = []
        for _ in range(n):
            src = g.integers(3, VOCAB, size=g.integers(3, 9)).tolist()
            self.items.append((src + [EOS], src[::-1] + [EOS]))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        src, tgt = self.items[i]
        return {"input_ids": src, "labels": tgt}


def collate(batch):
    src_len = max(len(b["input_ids"]) for b in batch)
    tgt_len = max(len(b["labels"]) for b in batch)
    ids = torch.full((len(batch), src_len), PAD, dtype=torch.long)
    labels = torch.full((len(batch), tgt_len), -100, dtype=torch.long)
    for i, b in enumerate(batch):
        ids[i, : len(b["input_ids"])] = torch.tensor(b["input_ids"])
        labels[i, : len(b["labels"])] = torch.tensor(b["labels"])
    decoder_input_ids = model.prepare_decoder_input_ids_from_labels(labels=labels)
    return {"input_ids": ids, "attention_mask": (ids != PAD).long(), "labels": labels,
            "decoder_input_ids": decoder_input_ids}


def compute_metrics(eval_pred):
    preds, labels = eval_pred
    preds = np.where(preds == -100, PAD, preds)
    exact, tok_acc = [], []
    for p, l in zip(preds, labels):
        l = l[l != -100]
        p = p[p != PAD][: len(l)]
        p = np.pad(p, (0, len(l) - len(p)), constant_values=PAD)
        exact.append(float((p == l).all()))
        tok_acc.append(float((p == l).mean()))
    return {"exact_match": float(np.mean(exact)), "token_acc": float(np.mean(tok_acc))}


config = T5Config(
    vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
    num_heads=4, pad_token_id=PAD, eos_token_id=EOS, decoder_start_token_id=PAD,
    relative_attention_num_buckets=16,
)
model = T5ForConditionalGeneration(config)
model.generation_config = GenerationConfig(
    decoder_start_token_id=PAD, pad_token_id=PAD, eos_token_id=EOS, max_length=14, num_beams=1,
)

args = Seq2SeqTrainingArguments(
    output_dir=tempfile.mkdtemp(),
    per_device_train_batch_size=16,
    per_device_eval_batch_size=16,
    num_train_epochs=3,
    learning_rate=2e-3,
    label_smoothing_factor=0.1,
    logging_steps=10,
    eval_strategy="epoch",
    save_strategy="no",
    predict_with_generate=True,
    report_to=[],
    bf16=True,
    use_cpu=True,
)
trainer = Seq2SeqTrainer(
    model=model,
    args=args,
    train_dataset=ReverseDataset(160, 0),
    eval_dataset=ReverseDataset(32, 1),
    data_collator=collate,
    compute_metrics=compute_metrics,
)
trainer.train()
metrics = trainer.evaluate()
print({k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)})
assert np.isfinite(metrics["eval_loss"])

model.eval()
sample = collate([ReverseDataset(2, 7)[i] for i in range(2)])
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    gen = model.generate(input_ids=sample["input_ids"], attention_mask=sample["attention_mask"])
assert torch.all(gen >= 0)
print("source:", sample["input_ids"].tolist())
print("generated:", gen.tolist())
