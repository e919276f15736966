import math
import tempfile
import torch
import torch.nn as nn
from torch.utils.data import Dataset
from transformers import BertConfig, BertModel, Trainer, TrainingArguments

torch.manual_seed(0)
VOCAB, MAX_LEN = 200, 24


class ToyRatingDataset(Dataset):
    """Sequences of token ids; target = noisy mean token value, noise grows with length."""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.items = []
        for _ in range(n):
            length = int(torch.randint(4, MAX_LEN + 1, (1,), generator=g))
            ids = torch.randint(1, VOCAB, (length,), generator=g)
            target = ids.float().mean() / VOCAB + 0.02 * length * torch.randn((), generator=g)
            self.items.append((ids, target))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    ids = torch.zeros(len(batch), MAX_LEN, dtype=torch.long)
    mask = torch.zeros(len(batch), MAX_LEN, dtype=torch.long)
    for j, (seq, _) in enumerate(batch):
        ids[j, :len(seq)] = seq
        mask[j, :len(seq)] = 1
    labels = torch.stack([t for _, t in batch])
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


class AttentionPool(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.score = nn.Linear(hidden, 1)

    def forward(self, h, attention_mask):
        scores = self.score(h).squeeze(-1)
        scores = scores.masked_fill(attention_mask == 0, -1e9)
        weights = scores.softmax(-1)
        return (weights.unsqueeze(-1) * h).sum(1)


class HeteroscedasticBert(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.bert = BertModel(config, add_pooling_layer=False)
        self.pool = AttentionPool(config.hidden_size)
        self.head = nn.Linear(config.hidden_size, 2)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mean, log_var = self.head(self.pool(h, attention_mask)).unbind(-1)
        out = {"mean": mean, "log_var": log_var}
        if labels is not None:
            labels = labels.to(mean.dtype)
            nll = 0.5 * (log_var + (labels - mean) ** 2 * torch.exp(-log_var) + math.log(2 * math.pi))
            out["loss"] = nll.mean()
        return out


def main():
    config = BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=MAX_LEN)
    model = HeteroscedasticBert(config).half()
    train_ds, eval_ds = ToyRatingDataset(512, seed=1), ToyRatingDataset(128, seed=2)

    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir, per_device_train_batch_size=32, per_device_eval_batch_size=64,
            num_train_epochs=2, learning_rate=1e-3, logging_steps=8, save_strategy="no",
            report_to=[], use_cpu=True, remove_unused_columns=False, disable_tqdm=True,
        )
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                          data_collator=collate)
        trainer.train()
        metrics = trainer.evaluate()
        print({k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)})


if __name__ == "__main__":
    main()
