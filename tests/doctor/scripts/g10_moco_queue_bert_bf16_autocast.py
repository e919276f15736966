"""MoCo-style dense retriever (BERT-style): a query encoder trained with InfoNCE against a
momentum key encoder and a FIFO queue of past passage embeddings as extra negatives.
Forward passes run under CPU bf16 autocast."""
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import BertConfig, BertModel

torch.manual_seed(10)
rng = np.random.default_rng(10)
VOCAB, PAD, CLS, SEP = 900, 0, 101, 102
DIM, QUEUE, TAU, M = 64, 100, 0.05, 0.995

cfg = BertConfig(vocab_size=VOCAB, hidden_size=DIM, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64, pad_token_id=PAD)


class MoCoRetriever(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_enc = BertModel(cfg, add_pooling_layer=False)
        self.k_enc = copy.deepcopy(self.q_enc)
        for p in self.k_enc.parameters():
            p.requires_grad_(False)
        # the queue is the biggest tensor here; keep it in bf16 like the autocast activations
        self.register_buffer("queue", F.normalize(torch.randn(QUEUE, DIM), dim=1).to(torch.bfloat16))
        self.register_buffer("queue_ptr", torch.zeros((), dtype=torch.long))

    @staticmethod
    def pool(enc, ids, mask):
        h = enc(input_ids=ids, attention_mask=mask).last_hidden_state
        return F.normalize(h[:, 0], dim=-1)

    @torch.no_grad()
    def momentum_update(self):
        for pq, pk in zip(self.q_enc.parameters(), self.k_enc.parameters()):
            pk.mul_(M).add_(pq.detach(), alpha=1 - M)

    @torch.no_grad()
    def dequeue_and_enqueue(self, keys):
        bs = keys.size(0)
        idx = (self.queue_ptr + torch.arange(bs)) % QUEUE
        self.queue.index_copy_(0, idx, keys)
        self.queue_ptr.copy_((self.queue_ptr + bs) % QUEUE)

    def forward(self, q_ids, q_mask, p_ids, p_mask):
        q = self.pool(self.q_enc, q_ids, q_mask)
        with torch.no_grad():
            self.momentum_update()
            k = self.pool(self.k_enc, p_ids, p_mask)
        l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
        l_neg = torch.einsum("nc,kc->nk", q, self.queue.clone().detach())
        logits = torch.cat([l_pos, l_neg], dim=1) / TAU
        loss = F.cross_entropy(logits.float(), torch.zeros(q.size(0), dtype=torch.long))
        self.dequeue_and_enqueue(k)
        return loss


def batch(n):
    qs, ps = [], []
    for _ in range(n):
        t = rng.integers(200, VOCAB, size=4).tolist()
        qs.append([CLS, *t[:3], SEP])
        ps.append([CLS, *t, *rng.integers(200, VOCAB, size=int(rng.integers(6, 18))).tolist(), SEP])

    def pad(seqs):
        L = max(map(len, seqs))
        ids = torch.tensor([s + [PAD] * (L - len(s)) for s in seqs])
        return ids, (ids != PAD).long()
    return (*pad(qs), *pad(ps))


model = MoCoRetriever()
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-4)
for step in range(8):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(*batch(16))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f} queue_ptr {int(model.queue_ptr)}")
