import tempfile

import numpy as np
import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

rng = np.random.default_rng(13)
torch.manual_seed(13)

NUM_NODE_TYPES = 12
PAD, CLS, SEP, EDGE = 0, 1, 2, 3
OFFSET = 4
MAX_LEN = 48


def random_graph():
    n = int(rng.integers(5, 14))
    types = rng.integers(0, NUM_NODE_TYPES, n)
    m = int(rng.integers(n - 1, 2 * n))
    edges = rng.integers(0, n, (m, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    return types, edges


def tokenize(types, edges):
    tokens = [CLS] + [OFFSET + int(t) for t in types] + [SEP]
    for u, v in edges:
        tokens += [OFFSET + int(types[u]), EDGE, OFFSET + int(types[v])]
        if len(tokens) >= MAX_LEN - 1:
            break
    tokens = tokens[:MAX_LEN - 1] + [SEP]
    return tokens


class GraphSeqDataset(torch.utils.data.Dataset):
    def __init__(self, size):
        self.items = []
        for _ in range(size):
            types, edges = random_graph()
            label = int(len(edges) / len(types) > 1.3)
            self.items.append((tokenize(types, edges), label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        tokens, label = self.items[i]
        ids = np.full(MAX_LEN, PAD, dtype=np.int64)
        ids[:len(tokens)] = tokens
        ids = torch.from_numpy(ids)
        return {"input_ids": ids, "attention_mask": (ids != PAD).long(), "labels": torch.tensor(label)}


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((logits.argmax(-1) == labels).mean())}


def main():
    config = BertConfig(vocab_size=OFFSET + NUM_NODE_TYPES, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128, max_position_embeddings=MAX_LEN,
                        num_labels=2)
    model = BertForSequenceClassification(config)
    train_ds, eval_ds = GraphSeqDataset(128), GraphSeqDataset(64)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=32, num_train_epochs=2,
                                 learning_rate=1e-3, warmup_steps=2, logging_steps=2, report_to="none",
                                 use_cpu=True, bf16=True, save_strategy="no", eval_strategy="epoch",
                                 disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                          compute_metrics=compute_metrics)
        result = trainer.train()
        metrics = trainer.evaluate()
    print(f"train loss {result.training_loss:.4f} eval loss {metrics['eval_loss']:.4f} "
          f"eval acc {metrics['eval_accuracy']:.3f}")


if __name__ == "__main__":
    main()
