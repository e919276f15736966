"""Behaviour cloning of a discrete-action controller with a tiny GPT-2 over observation histories,
trained with the transformers Trainer in bf16. The offline data comes as one float32 array per
episode step: [obs..., action]."""
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import GPT2Config, GPT2Model, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)
OBS, N_ACT, CTX = 6, 5, 8


def expert_dataset(n_windows=512):
    # recorded transitions: columns 0..5 are the observation, column 6 is the discrete action id
    rows = np.zeros((n_windows, CTX, OBS + 1), dtype=np.float32)
    for i in range(n_windows):
        o = rng.normal(size=(CTX, OBS)).astype(np.float32)
        rows[i, :, :OBS] = o
        rows[i, :, OBS] = np.argmax(o[:, :N_ACT], axis=1)
    return rows


rows = expert_dataset()
ds = Dataset.from_dict({"obs": rows[:, :, :OBS], "labels": rows[:, -1, OBS]}).with_format("torch")


class GPT2Policy(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = GPT2Config(n_embd=64, n_layer=2, n_head=2, n_positions=CTX, vocab_size=1,
                         bos_token_id=None, eos_token_id=None)
        self.embed = nn.Linear(OBS, 64)
        self.gpt = GPT2Model(cfg)
        self.head = nn.Linear(64, N_ACT)

    def forward(self, obs, labels=None):
        h = self.gpt(inputs_embeds=self.embed(obs)).last_hidden_state[:, -1]
        logits = self.head(h)
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


with tempfile.TemporaryDirectory() as out:
    args = TrainingArguments(output_dir=out, per_device_train_batch_size=32, max_steps=30, learning_rate=3e-4,
                             bf16=True, use_cpu=True, logging_steps=10, report_to=[], save_strategy="no",
                             remove_unused_columns=False, dataloader_num_workers=0)
    trainer = Trainer(model=GPT2Policy(), args=args, train_dataset=ds)
    trainer.train()
    print(trainer.evaluate(ds))
