"""Fine-tune a tiny Qwen2 sentiment-style classifier with the HF Trainer.
bf16 mixed precision for training; evaluation is done in full fp16 to make it cheaper,
and a baseline evaluation is run before training starts."""
import tempfile
import numpy as np
import torch
from datasets import Dataset
from transformers import Qwen2Config, Qwen2ForSequenceClassification, Trainer, TrainingArguments

torch.manual_seed(0)
np.random.seed(0)

VOCAB, SEQ = 200, 24
cfg = Qwen2Config(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, intermediate_size=64, max_position_embeddings=64, num_labels=2,
                  pad_token_id=0, bos_token_id=1, eos_token_id=2)
model = Qwen2ForSequenceClassification(cfg)

# synthetic data: label = whether "positive" tokens (ids 5..49) outnumber "negative" ones (50..94)
def make_split(n):
    ids = np.random.randint(5, 95, size=(n, SEQ))
    ids[:, 0] = 1  # <bos>
    pos = ((ids >= 5) & (ids < 50)).sum(1)
    neg = ((ids >= 50) & (ids < 95)).sum(1)
    return Dataset.from_dict({"input_ids": ids.tolist(),
                              "attention_mask": np.ones_like(ids).tolist(),
                              "labels": (pos > neg).astype(int).tolist()})

train_ds, eval_ds = make_split(256), make_split(64)


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    return {"accuracy": float((preds == p.label_ids).mean())}


with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(
        output_dir=out_dir,
        per_device_train_batch_size=16,
        per_device_eval_batch_size=32,
        num_train_epochs=2,
        learning_rate=1e-3,
        optim="adamw_torch",
        bf16=True,
        fp16_full_eval=True,
        eval_strategy="epoch",
        logging_steps=4,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        disable_tqdm=True,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                      compute_metrics=compute_metrics)
    print("baseline:", trainer.evaluate())
    trainer.train()
    print("final:", trainer.evaluate())
