"""Heteroscedastic 2-D regression from token sequences with a tiny BERT encoder and a
full-covariance Gaussian head (torch.distributions.MultivariateNormal), trained with the
HF Trainer. The model is created directly in bfloat16 to halve memory."""
import tempfile
import time

import torch
import torch.nn as nn
from datasets import Dataset
from torch.distributions import MultivariateNormal
from transformers import BertConfig, BertModel, Trainer, TrainingArguments
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
torch.manual_seed(0)
VOCAB, SEQ = 100, 24


class BertGaussianRegressor(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.bert = BertModel(config, add_pooling_layer=False)
        h = config.hidden_size
        self.mean_head = nn.Linear(h, 2)
        self.cov_head = nn.Linear(h, 4)

    def forward(self, input_ids=None, attention_mask=None, labels=None):
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state[:, 0]
        mean = self.mean_head(hidden)
        a = self.cov_head(hidden).view(-1, 2, 2)
        cov = a @ a.transpose(-1, -2) + 1e-3 * torch.eye(2, dtype=a.dtype)
        dist = MultivariateNormal(mean, covariance_matrix=cov)
        out = {"mean": mean}
        if labels is not None:
            out["loss"] = -dist.log_prob(labels.to(mean.dtype)).mean()
        return out


def build_dataset(n):
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(5, VOCAB, (n, SEQ), generator=g)
    ids[:, 0] = 1  # [CLS]
    frac_hi = (ids > 50).float().mean(1)
    y = torch.stack([frac_hi * 4 - 2, (ids % 7 == 0).float().mean(1) * 10 - 1], 1)
    y = y + 0.1 * torch.randn(n, 2, generator=g)
    return Dataset.from_dict({"input_ids": ids.tolist(),
                              "attention_mask": torch.ones_like(ids).tolist(),
                              "labels": y.tolist()})


def main():
    t0 = time.time()
    config = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=64)
    model = BertGaussianRegressor(config).to(torch.bfloat16)
    train_ds, eval_ds = build_dataset(256), build_dataset(64)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=32,
                                 per_device_eval_batch_size=32, num_train_epochs=2, learning_rate=5e-4,
                                 logging_steps=4, report_to=[], use_cpu=True, save_strategy="no",
                                 dataloader_num_workers=0)
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
        trainer.train()
        metrics = trainer.evaluate()
    print(f"eval nll {metrics['eval_loss']:.3f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
