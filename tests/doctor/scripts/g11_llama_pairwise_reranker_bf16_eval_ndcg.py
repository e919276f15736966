"""Decoder-based pointwise reranker (LlamaForSequenceClassification) trained with a
pairwise RankNet loss, saved, then reloaded in bf16 for evaluation: rerank candidate lists
and compute NDCG@5 / MRR with NumPy."""
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForSequenceClassification

torch.manual_seed(11)
rng = np.random.default_rng(11)
VOCAB, PAD, BOS, EOS, SEPT = 500, 0, 1, 2, 3

cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                  num_labels=1, pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)


def fmt(q, d):
    return [BOS, *q, SEPT, *d, EOS]


def rpad(seqs):
    L = max(map(len, seqs))
    ids = torch.tensor([s + [PAD] * (L - len(s)) for s in seqs])
    return ids, (ids != PAD).long()


def query_with_candidates(n_cand=8):
    t = rng.integers(10, VOCAB, size=4).tolist()
    q = t[:3]
    cands, rel = [], []
    for j in range(n_cand):
        grade = 2 if j == 0 else (1 if j < 3 else 0)
        head = t if grade == 2 else (t[:2] if grade == 1 else [])
        cands.append(head + rng.integers(10, VOCAB, size=int(rng.integers(6, 12))).tolist())
        rel.append(grade)
    return q, cands, np.array(rel)


model = LlamaForSequenceClassification(cfg)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(6):
    q, cands, rel = query_with_candidates()
    ids, mask = rpad([fmt(q, d) for d in cands])
    s = model(input_ids=ids, attention_mask=mask).logits.squeeze(-1)
    rel_t = torch.as_tensor(rel)
    diff = s[:, None] - s[None, :]
    pair_mask = (rel_t[:, None] > rel_t[None, :]).float()
    loss = (F.softplus(-diff) * pair_mask).sum() / pair_mask.sum()
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} ranknet loss {loss.item():.4f}")


def ndcg_at_k(rel_sorted, k):
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = ((2.0 ** rel_sorted[:k] - 1) * disc[: len(rel_sorted[:k])]).sum()
    ideal = np.sort(rel_sorted)[::-1]
    idcg = ((2.0 ** ideal[:k] - 1) * disc[: len(ideal[:k])]).sum()
    return dcg / idcg if idcg > 0 else 0.0


with tempfile.TemporaryDirectory() as ckpt:
    model.save_pretrained(ckpt)
    reranker = LlamaForSequenceClassification.from_pretrained(ckpt, dtype=torch.bfloat16).eval()

    ndcg, mrr = [], []
    for _ in range(10):
        q, cands, rel = query_with_candidates()
        ids, mask = rpad([fmt(q, d) for d in cands])
        with torch.inference_mode():
            scores = reranker(input_ids=ids, attention_mask=mask).logits.squeeze(-1).cpu().numpy()
        order = np.argsort(-scores)
        ndcg.append(ndcg_at_k(rel[order], 5))
        mrr.append(1.0 / (np.where(rel[order] == 2)[0][0] + 1))
    print(f"NDCG@5 {np.mean(ndcg):.4f}  MRR {np.mean(mrr):.4f}")
