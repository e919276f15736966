"""Decoder-as-embedder (Llama-style) trained with an InfoNCE loss written out as in the
paper: -log( exp(s+/tau) / sum_j exp(s_j/tau) ).  The model runs in fp16 to save memory;
embeddings are the hidden state of the final (EOS) token with right padding."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaModel

torch.manual_seed(0)
rng = np.random.default_rng(1)
VOCAB, PAD, BOS, EOS = 600, 0, 1, 2
TAU = 0.02

cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128,
                  pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)
model = LlamaModel(cfg).half()
model.train()


def encode_batch(seqs):
    L = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), L), PAD)
    mask = torch.zeros((len(seqs), L), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s)
        mask[i, :len(s)] = 1
    h = model(input_ids=ids, attention_mask=mask).last_hidden_state
    last = mask.sum(1) - 1
    emb = h[torch.arange(len(seqs)), last]
    return F.normalize(emb, p=2, dim=-1)


def batch(n):
    qs, ds = [], []
    for _ in range(n):
        t = rng.integers(10, VOCAB, size=4).tolist()
        qs.append([BOS, *t[:2], *rng.integers(10, VOCAB, size=4).tolist(), EOS])
        ds.append([BOS, *t, *rng.integers(10, VOCAB, size=int(rng.integers(8, 16))).tolist(), EOS])
    return qs, ds


def info_nce(q, d, tau):
    sim = q @ d.T                                   # [B, B], diagonal = positives
    pos = torch.exp(torch.diagonal(sim) / tau)
    denom = torch.exp(sim / tau).sum(dim=1)
    return -torch.log(pos / denom).mean()


opt = torch.optim.AdamW(model.parameters(), lr=1e-4, eps=1e-6)
for step in range(5):
    qs, ds = batch(12)
    q = encode_batch(qs)
    d = encode_batch(ds)
    loss = info_nce(q, d, TAU)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step}: loss={loss.item():.4f}")
print("done")
