"""Offline corpus encoding with a Qwen2-style embedder, embeddings cached to disk as .npy
(float16 to halve the file size), then an online search step that reloads the cache,
embeds incoming queries and returns top-k passages."""
import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from transformers import Qwen2Config, Qwen2Model

torch.manual_seed(7)
rng = np.random.default_rng(7)
VOCAB, PAD, EOS = 640, 0, 1

cfg = Qwen2Config(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, intermediate_size=128, max_position_embeddings=128,
                  pad_token_id=PAD, eos_token_id=EOS)
model = Qwen2Model(cfg).eval()

N_DOCS = 200
topics = [rng.integers(2, VOCAB, size=4).tolist() for _ in range(N_DOCS)]
docs = [t + rng.integers(2, VOCAB, size=int(rng.integers(8, 30))).tolist() + [EOS] for t in topics]
qids = rng.choice(N_DOCS, 24, replace=False)
queries = [topics[i][:3] + rng.integers(2, VOCAB, size=3).tolist() + [EOS] for i in qids]


def left_pad(seqs):
    L = max(map(len, seqs))
    ids = torch.full((len(seqs), L), PAD)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(seqs):
        ids[i, L - len(s):] = torch.tensor(s)
        mask[i, L - len(s):] = 1
    return ids, mask


@torch.no_grad()
def embed(seqs, bs=32):
    outs = []
    for i in range(0, len(seqs), bs):
        ids, mask = left_pad(seqs[i:i + bs])
        h = model(input_ids=ids, attention_mask=mask).last_hidden_state
        outs.append(F.normalize(h[:, -1], dim=-1))
    return torch.cat(outs)


with tempfile.TemporaryDirectory() as tmp:
    cache = os.path.join(tmp, "corpus_emb.npy")
    # ---- offline job
    corpus_emb = embed(docs)
    np.save(cache, corpus_emb.numpy().astype(np.float16))
    print(f"cached {corpus_emb.shape} -> {os.path.getsize(cache) / 1024:.1f} KiB")
    del corpus_emb

    # ---- online search
    index = torch.from_numpy(np.load(cache))
    q_emb = embed(queries)
    scores = q_emb @ index.T
    top_scores, top_ids = torch.topk(scores, k=10, dim=1)
    hits = np.mean([qids[i] in top_ids[i].tolist() for i in range(len(queries))])
    print(f"hit@10 = {hits:.3f}")
