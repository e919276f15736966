import os
import random
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import MPNetConfig, MPNetModel

torch.manual_seed(0)
random.seed(0)

VOCAB, PAD = 400, 1
N_DOCS, EMB_DIM = 64, 32

# tiny "pretrained" sentence encoder, saved to disk as if downloaded earlier
enc_dir = os.path.join(tempfile.mkdtemp(), "mpnet-tiny")
MPNetModel(MPNetConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=48, pad_token_id=PAD,
), add_pooling_layer=False).save_pretrained(enc_dir)

rng = random.Random(0)
docs = [[rng.randint(5, VOCAB - 1) for _ in range(rng.randint(12, 20))] for _ in range(N_DOCS)]


def make_query(doc, rng):
    """A query is a noisy subset of its document's tokens."""
    q = rng.sample(doc, k=5)
    return [t if rng.random() > 0.2 else rng.randint(5, VOCAB - 1) for t in q]


def pad(seqs):
    n = max(len(s) for s in seqs) + 2
    ids = torch.full((len(seqs), n), PAD)
    for i, s in enumerate(seqs):
        ids[i, : len(s) + 2] = torch.tensor([0] + s + [2])
    return ids, (ids != PAD).long()


class BiEncoder(nn.Module):
    def __init__(self, encoder, dim):
        super().__init__()
        self.encoder = encoder
        self.proj = nn.Linear(encoder.config.hidden_size, dim)

    def embed(self, ids, mask):
        h = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        pooled = (h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return F.normalize(self.proj(pooled), dim=-1)


encoder = MPNetModel.from_pretrained(enc_dir, torch_dtype=torch.bfloat16, add_pooling_layer=False)
model = BiEncoder(encoder, EMB_DIM)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
temperature = 0.05

for step in range(30):
    idx = rng.sample(range(N_DOCS), k=16)
    q_ids, q_mask = pad([make_query(docs[i], rng) for i in idx])
    d_ids, d_mask = pad([docs[i] for i in idx])
    q = model.embed(q_ids, q_mask)
    d = model.embed(d_ids, d_mask)
    logits = (q @ d.t()).float() / temperature
    loss = F.cross_entropy(logits, torch.arange(len(idx)))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if step % 10 == 0:
        print(f"step {step}: in-batch contrastive loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    doc_emb = model.embed(*pad(docs))
    queries = [make_query(d, rng) for d in docs]
    q_emb = model.embed(*pad(queries))
    ranks = (q_emb @ doc_emb.t()).float().argsort(dim=-1, descending=True)
    hit1 = (ranks[:, 0] == torch.arange(N_DOCS)).float().mean().item()
    hit5 = (ranks[:, :5] == torch.arange(N_DOCS)[:, None]).any(-1).float().mean().item()
print(f"retrieval hit@1 {hit1:.3f}  hit@5 {hit5:.3f}")
