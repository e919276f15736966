"""Prompt tuning of a tiny RoBERTa sequence classifier with the HF Trainer (bf16 on CPU)."""
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import RobertaConfig, RobertaForSequenceClassification, Trainer, TrainingArguments
from peft import PromptTuningConfig, PromptTuningInit, TaskType, get_peft_model

rng = np.random.default_rng(0)
torch.manual_seed(0)
VOCAB, SEQ, N_LABELS, PAD = 180, 24, 3, 1


class ToyTopicDataset(Dataset):
    """Each 'topic' owns a slice of the vocabulary; a sentence mostly uses words of its topic."""

    def __init__(self, n):
        self.labels = rng.integers(0, N_LABELS, size=n).astype(np.int32)
        self.lengths = rng.integers(8, SEQ + 1, size=n)
        width = (VOCAB - 10) // N_LABELS
        self.ids = []
        for y, L in zip(self.labels, self.lengths):
            topic = rng.integers(10 + y * width, 10 + (y + 1) * width, size=L)
            noise = rng.integers(10, VOCAB, size=L)
            self.ids.append(np.where(rng.random(L) < 0.7, topic, noise))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "label": self.labels[i]}


def collate(features):
    max_len = max(len(f["input_ids"]) for f in features)
    ids = np.full((len(features), max_len), PAD, dtype=np.int64)
    mask = np.zeros((len(features), max_len), dtype=np.int64)
    for i, f in enumerate(features):
        ids[i, : len(f["input_ids"])] = f["input_ids"]
        mask[i, : len(f["input_ids"])] = 1
    labels = np.array([f["label"] for f in features])
    return {
        "input_ids": torch.from_numpy(ids),
        "attention_mask": torch.from_numpy(mask),
        "labels": torch.from_numpy(labels),
    }


config = RobertaConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
    max_position_embeddings=SEQ + 32, pad_token_id=PAD, num_labels=N_LABELS,
)
base = RobertaForSequenceClassification(config)
peft_cfg = PromptTuningConfig(
    task_type=TaskType.SEQ_CLS, num_virtual_tokens=8, prompt_tuning_init=PromptTuningInit.RANDOM,
)
model = get_peft_model(base, peft_cfg)
model.print_trainable_parameters()

args = TrainingArguments(
    output_dir=tempfile.mkdtemp(),
    per_device_train_batch_size=32,
    per_device_eval_batch_size=64,
    num_train_epochs=2,
    learning_rate=3e-2,
    bf16=True,
    use_cpu=True,
    logging_steps=5,
    eval_strategy="epoch",
    save_strategy="no",
    report_to=[],
    dataloader_num_workers=0,
)


def metrics(pred):
    return {"accuracy": float((pred.predictions.argmax(-1) == pred.label_ids).mean())}


trainer = Trainer(
    model=model, args=args, train_dataset=ToyTopicDataset(320), eval_dataset=ToyTopicDataset(96),
    data_collator=collate, compute_metrics=metrics,
)
trainer.train()
print(trainer.evaluate())
