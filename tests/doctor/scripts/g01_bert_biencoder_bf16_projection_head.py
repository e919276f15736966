"""Bi-encoder (BERT-style) contrastive fine-tuning in bf16 with in-batch + hard negatives,
a learnable temperature and a small projection head for 32-dim retrieval embeddings."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import BertConfig, BertModel

torch.manual_seed(0)
rng = np.random.default_rng(0)
VOCAB, PAD, CLS, SEP = 800, 0, 101, 102

config = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=64, pad_token_id=PAD)


def sample_triplet():
    topic = rng.integers(200, VOCAB, size=5)
    other = rng.integers(200, VOCAB, size=5)
    q = [CLS, *topic[:3], *rng.integers(200, VOCAB, size=3), SEP]
    pos = [CLS, *topic, *rng.integers(200, VOCAB, size=rng.integers(6, 14)), SEP]
    neg = [CLS, *topic[:1], *other, *rng.integers(200, VOCAB, size=rng.integers(6, 14)), SEP]
    return q, pos, neg


def pad(batch):
    L = max(map(len, batch))
    ids = torch.tensor([s + [PAD] * (L - len(s)) for s in batch])
    return ids, (ids != PAD).long()


class BiEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.encoder = BertModel(config, add_pooling_layer=False)
        self.log_tau = nn.Parameter(torch.tensor(math.log(0.05)))

    def encode(self, ids, mask):
        h = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(-1).to(h.dtype)
        emb = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return F.normalize(self.proj(emb), dim=-1, eps=1e-6) if hasattr(self, "proj") else F.normalize(emb, dim=-1)


model = BiEncoder(config).to(torch.bfloat16)
# low-dim retrieval head, added after the backbone was converted
model.proj = nn.Linear(config.hidden_size, 32)

opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
BATCH = 8
for step in range(6):
    trip = [sample_triplet() for _ in range(BATCH)]
    q_ids, q_mask = pad([t[0] for t in trip])
    d_ids, d_mask = pad([t[1] for t in trip] + [t[2] for t in trip])  # positives then hard negatives
    q = model.encode(q_ids, q_mask)
    d = model.encode(d_ids, d_mask)
    logits = (q @ d.T).float() / model.log_tau.exp().float()
    labels = torch.arange(BATCH)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f} tau {model.log_tau.exp().item():.4f}")
