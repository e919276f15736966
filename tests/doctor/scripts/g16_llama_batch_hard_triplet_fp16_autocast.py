"""Batch-hard triplet training of a Llama-style decoder used as an embedder (mean pooling):
queries and passages of the same topic share a label, pairwise Euclidean distances are
computed with the ||a||^2 + ||b||^2 - 2ab expansion, and the hardest positive / negative per
anchor is mined inside the batch.  Runs under CPU fp16 autocast."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaModel

torch.manual_seed(16)
rng = np.random.default_rng(16)
VOCAB, PAD, BOS, EOS = 600, 0, 1, 2
MARGIN = 0.3

cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                  pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)
model = LlamaModel(cfg)


def make_batch(n_topics=8, per_topic=3):
    seqs, labels = [], []
    for k in range(n_topics):
        t = rng.integers(10, VOCAB, size=5).tolist()
        seqs.append([BOS, *t[:3], EOS]); labels.append(k)                       # query
        for _ in range(per_topic - 1):                                          # passages
            seqs.append([BOS, *t, *rng.integers(10, VOCAB, size=int(rng.integers(5, 15))).tolist(), EOS])
            labels.append(k)
    L = max(map(len, seqs))
    ids = torch.tensor([s + [PAD] * (L - len(s)) for s in seqs])
    return ids, (ids != PAD).long(), torch.tensor(labels)


def embed(ids, mask):
    h = model(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask.unsqueeze(-1).to(h.dtype)
    return F.normalize((h * m).sum(1) / m.sum(1), dim=-1)


def pairwise_distances(e):
    dot = e @ e.T
    sq = (e * e).sum(dim=1)
    d2 = sq.unsqueeze(0) - 2.0 * dot + sq.unsqueeze(1)
    return d2.sqrt()


def batch_hard_triplet_loss(labels, e):
    dist = pairwise_distances(e)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    eye = torch.eye(len(labels), dtype=torch.bool)
    pos_mask = (same & ~eye).float()
    neg_mask = (~same).float()
    hardest_pos = (dist * pos_mask).max(dim=1).values
    max_d = dist.max(dim=1, keepdim=True).values
    hardest_neg = (dist + max_d * (1.0 - neg_mask)).min(dim=1).values
    return F.relu(hardest_pos - hardest_neg + MARGIN).mean()


opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(6):
    ids, mask, labels = make_batch()
    with torch.autocast("cpu", dtype=torch.float16):
        emb = embed(ids, mask)
        loss = batch_hard_triplet_loss(labels, emb)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} triplet loss {loss.item():.4f}")
print("done")
