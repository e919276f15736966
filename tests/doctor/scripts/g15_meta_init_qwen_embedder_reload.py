"""Reload a fine-tuned Qwen2-style embedder from a safetensors checkpoint without
materialising random weights first (meta-device init + assign=True), then embed a
small corpus and run retrieval evaluation."""
import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import save_file, load_file
from transformers import Qwen2Config, Qwen2Model

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB, PAD, EOS = 512, 0, 1
cfg = Qwen2Config(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, intermediate_size=128, max_position_embeddings=128,
                  pad_token_id=PAD, eos_token_id=EOS)


def make_pairs(n):
    qs, ds = [], []
    for _ in range(n):
        topic = rng.integers(2, VOCAB, size=4)
        q = np.concatenate([topic[:2], rng.integers(2, VOCAB, size=rng.integers(3, 7)), [EOS]])
        d = np.concatenate([topic, rng.integers(2, VOCAB, size=rng.integers(8, 20)), [EOS]])
        qs.append(q); ds.append(d)
    return qs, ds


def collate_left(seqs):
    L = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), L), PAD, dtype=torch.long)
    mask = torch.zeros((len(seqs), L), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, L - len(s):] = torch.as_tensor(s)
        mask[i, L - len(s):] = 1
    return ids, mask


def last_token_pool(hidden, mask):
    # left padding -> the last position is always the EOS token
    return hidden[:, -1]


def embed(model, seqs, bs=16):
    out = []
    with torch.inference_mode():
        for i in range(0, len(seqs), bs):
            ids, mask = collate_left(seqs[i:i + bs])
            h = model(input_ids=ids, attention_mask=mask).last_hidden_state
            out.append(F.normalize(last_token_pool(h, mask).float(), dim=-1))
    return torch.cat(out)


queries, docs = make_pairs(64)

with tempfile.TemporaryDirectory() as tmp:
    # --- "training" run: a short contrastive fine-tune, then save the weights
    model = Qwen2Model(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
    for step in range(4):
        idx = rng.choice(len(queries), 16, replace=False)
        qi, qm = collate_left([queries[i] for i in idx])
        di, dm = collate_left([docs[i] for i in idx])
        q = F.normalize(last_token_pool(model(input_ids=qi, attention_mask=qm).last_hidden_state, qm), dim=-1)
        d = F.normalize(last_token_pool(model(input_ids=di, attention_mask=dm).last_hidden_state, dm), dim=-1)
        loss = F.cross_entropy(q @ d.T / 0.05, torch.arange(len(idx)))
        loss.backward(); opt.step(); opt.zero_grad()
        print(f"train step {step} loss {loss.item():.4f}")
    ckpt = os.path.join(tmp, "model.safetensors")
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, ckpt)
    del model

    # --- evaluation run: skip the random init, build on meta and assign the checkpoint tensors
    with torch.device("meta"):
        model = Qwen2Model(cfg)
    state = load_file(ckpt)
    missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    print("missing:", missing, "unexpected:", unexpected)
    model.eval()

    q_emb = embed(model, queries)
    d_emb = embed(model, docs)
    scores = (q_emb @ d_emb.T).numpy()
    ranks = (-scores).argsort(axis=1)
    mrr = np.mean([1.0 / (np.where(ranks[i] == i)[0][0] + 1) for i in range(len(queries))])
    print(f"MRR@all {mrr:.4f}")
