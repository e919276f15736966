import math
import tempfile
import numpy as np
import torch
from datasets import Dataset
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_BINS, CONTEXT = 256, 64


def make_corpus(n_series=64, length=CONTEXT):
    t = np.arange(length)
    rows = []
    for _ in range(n_series):
        period = rng.integers(6, 30)
        x = rng.normal(0, 3) + rng.uniform(0.5, 2) * np.sin(2 * np.pi * t / period) + rng.normal(0, 0.1, length)
        z = (x - x.mean()) / (np.abs(x).mean() + 1e-6)
        ids = np.clip(np.round((z + 4) / 8 * (N_BINS - 1)), 0, N_BINS - 1).astype(np.int64)
        rows.append({"input_ids": ids.tolist(), "labels": ids.tolist()})
    return Dataset.from_list(rows)


config = LlamaConfig(
    vocab_size=N_BINS, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=CONTEXT,
    bos_token_id=None, eos_token_id=None, pad_token_id=None,
)
model = LlamaForCausalLM(config).half()
train_ds = make_corpus()
eval_ds = make_corpus(32)

out_dir = tempfile.mkdtemp()
args = TrainingArguments(
    output_dir=out_dir,
    per_device_train_batch_size=16,
    per_device_eval_batch_size=16,
    num_train_epochs=2,
    learning_rate=1e-3,
    logging_steps=2,
    eval_strategy="epoch",
    save_strategy="no",
    report_to=[],
    use_cpu=True,
    disable_tqdm=True,
    logging_nan_inf_filter=False,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
trainer.train()
metrics = trainer.evaluate()
print(f"eval loss {metrics['eval_loss']:.4f} perplexity {math.exp(metrics['eval_loss']) if math.isfinite(metrics['eval_loss']) else float('nan')}")

with torch.no_grad():
    ids = torch.tensor(eval_ds[0]["input_ids"])[None, :48]
    gen = model.generate(ids, max_new_tokens=8, do_sample=False)
print("continuation bins:", gen[0, 48:].tolist())
