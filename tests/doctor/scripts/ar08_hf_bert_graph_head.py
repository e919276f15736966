import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import BertConfig, BertModel, Trainer, TrainingArguments

torch.manual_seed(6)

NUM_ATOM_TYPES = 20
SPECIAL = {"[PAD]": 0, "[CLS]": 1, "[SEP]": 2}
MAX_LEN = 48


def linearize_graph(num_nodes):
    atoms = torch.randint(0, NUM_ATOM_TYPES, (num_nodes,))
    parents = [int(torch.randint(0, i, (1,))) for i in range(1, num_nodes)]
    order = [0]
    children = {i: [] for i in range(num_nodes)}
    for c, p in enumerate(parents, start=1):
        children[p].append(c)
    stack = list(reversed(children[0]))
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(reversed(children[v]))
    tokens = [SPECIAL["[CLS]"]] + [3 + int(atoms[v]) for v in order] + [SPECIAL["[SEP]"]]
    label = int((atoms == 5).sum() >= 2)
    return tokens, label


class GraphTokenDataset(torch.utils.data.Dataset):
    def __init__(self, n):
        self.items = [linearize_graph(int(torch.randint(6, MAX_LEN - 2, (1,)))) for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        tokens, label = self.items[i]
        ids = torch.full((MAX_LEN,), SPECIAL["[PAD]"])
        ids[:len(tokens)] = torch.tensor(tokens)
        return {"input_ids": ids, "attention_mask": (ids != 0).long(), "labels": torch.tensor(label)}


class GraphClassifier(nn.Module):
    def __init__(self, backbone, num_classes=2):
        super().__init__()
        self.backbone = backbone
        self.dropout = nn.Dropout(0.1)
        self.graph_head = nn.Linear(backbone.config.hidden_size, num_classes)

    def forward(self, input_ids, attention_mask, labels=None):
        hidden = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * m).sum(1) / m.sum(1)
        logits = self.graph_head(self.dropout(pooled))
        loss = F.cross_entropy(logits.float(), labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def main():
    config = BertConfig(vocab_size=3 + NUM_ATOM_TYPES, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128, max_position_embeddings=64)
    backbone = BertModel(config, add_pooling_layer=False).to(torch.bfloat16)
    model = GraphClassifier(backbone)
    train_ds, eval_ds = GraphTokenDataset(256), GraphTokenDataset(64)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=32, num_train_epochs=2,
                                 learning_rate=5e-4, logging_steps=4, report_to="none", use_cpu=True,
                                 save_strategy="no", eval_strategy="epoch", disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
        result = trainer.train()
        print("train loss", result.training_loss)
        print(trainer.evaluate())


if __name__ == "__main__":
    main()
