import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset
from transformers import BertConfig, BertModel, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(9)

N_ITEMS, MAXLEN = 800, 24
PAD, MASK = 0, 1
FIRST_ITEM = 2


class MaskedItemDataset(Dataset):
    def __init__(self, n_users=480, mask_prob=0.2):
        self.seqs = []
        for _ in range(n_users):
            n = int(rng.integers(5, MAXLEN + 1))
            start = int(rng.integers(FIRST_ITEM, N_ITEMS - 3 * MAXLEN))
            self.seqs.append(start + np.cumsum(rng.integers(1, 3, n)))
        self.mask_prob = mask_prob

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, idx):
        seq = self.seqs[idx]
        ids = np.full(MAXLEN, PAD, dtype=np.int64)
        ids[-len(seq):] = seq
        labels = np.full(MAXLEN, -100, dtype=np.int64)
        m = (rng.random(MAXLEN) < self.mask_prob) & (ids != PAD)
        m[-1] = True
        labels[m] = ids[m]
        ids[m] = MASK
        return {"input_ids": torch.from_numpy(ids),
                "attention_mask": torch.from_numpy((ids != PAD).astype(np.int64)),
                "labels": torch.from_numpy(labels)}


class Bert4Rec(nn.Module):
    def __init__(self, encoder, n_items):
        super().__init__()
        self.encoder = encoder
        hidden = encoder.config.hidden_size
        self.item_head = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.LayerNorm(hidden), nn.Linear(hidden, n_items))

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        logits = self.item_head(h)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.float().view(-1, logits.shape[-1]), labels.view(-1), ignore_index=-100)
        return {"loss": loss, "logits": logits}


config = BertConfig(vocab_size=N_ITEMS, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=MAXLEN, pad_token_id=PAD)
encoder = BertModel(config, add_pooling_layer=False).to(torch.bfloat16)
model = Bert4Rec(encoder, N_ITEMS)
print("encoder params:", sum(p.numel() for p in encoder.parameters()))

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=64, num_train_epochs=2,
                             learning_rate=1e-3, logging_steps=5, report_to=[], save_strategy="no",
                             use_cpu=True, dataloader_num_workers=0, disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=MaskedItemDataset())
    result = trainer.train()
    print("final train loss", result.training_loss)
