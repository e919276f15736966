import tempfile

import torch
import torch.nn as nn
from torch.utils.data import Dataset
from transformers import BertConfig, BertModel, Trainer, TrainingArguments

torch.manual_seed(0)
VOCAB, SEQ, K = 300, 16, 5


class ChunkData(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.ids = torch.zeros(n, SEQ, dtype=torch.long)
        self.mask = torch.zeros(n, SEQ, dtype=torch.long)
        self.labels = torch.zeros(n, SEQ, dtype=torch.long)
        for i in range(n):
            L = int(torch.randint(6, SEQ + 1, (1,), generator=g))
            toks = torch.randint(5, VOCAB, (L,), generator=g)
            self.ids[i, :L], self.mask[i, :L] = toks, 1
            lab = torch.where(toks % 5 == 0, 1 + (toks % 2) * 2, torch.zeros_like(toks))
            lab[1:] = torch.where((lab[:-1] % 2 == 1) & (toks[1:] % 3 == 0), lab[:-1] + 1, lab[1:])
            self.labels[i, :L] = lab

    def __len__(self):
        return self.ids.size(0)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": self.mask[i], "labels": self.labels[i]}


class BertCRF(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=128, max_position_embeddings=32)
        self.bert = BertModel(cfg, add_pooling_layer=False)
        self.emit = nn.Linear(64, K)
        self.trans = nn.Parameter(torch.zeros(K, K))
        self.start = nn.Parameter(torch.zeros(K))

    def crf_nll(self, em, labels, mask):
        em = em.float()
        b = torch.arange(em.size(0))
        gold = self.start[labels[:, 0]] + em[b, 0, labels[:, 0]]
        alpha = self.start + em[:, 0]
        for t in range(1, em.size(1)):
            on = mask[:, t]
            step = self.trans[labels[:, t - 1], labels[:, t]] + em[b, t, labels[:, t]]
            gold = gold + torch.where(on, step, torch.zeros_like(step))
            nxt = torch.logsumexp(alpha.unsqueeze(2) + self.trans + em[:, t].unsqueeze(1), dim=1)
            alpha = torch.where(on.unsqueeze(-1), nxt, alpha)
        return (torch.logsumexp(alpha, dim=-1) - gold).mean()

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        em = self.emit(h)
        em = em.masked_fill(~attention_mask.bool().unsqueeze(-1), torch.finfo(em.dtype).min)
        em[..., 0] = torch.where(attention_mask.bool(), em[..., 0], torch.zeros_like(em[..., 0]))
        out = {"logits": em}
        if labels is not None:
            out["loss"] = self.crf_nll(em, labels, attention_mask.bool())
        return out


model = BertCRF()
with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=32, per_device_eval_batch_size=32,
                             num_train_epochs=2, learning_rate=3e-3, bf16=True, use_cpu=True, logging_steps=5,
                             save_strategy="no", report_to=[], remove_unused_columns=False)
    trainer = Trainer(model=model, args=args, train_dataset=ChunkData(256, 0), eval_dataset=ChunkData(64, 1))
    result = trainer.train()
    print("train loss", result.training_loss)
    print("eval loss", trainer.evaluate()["eval_loss"])
