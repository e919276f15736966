"""PolyGen-style vertex model: a tiny GPT-2 generates quantised mesh vertices as a flat token
sequence (z, y, x per vertex, sorted by z), then STOP. Trained in fp32; sampling runs in fp16
with the KV cache and PolyGen's constraint that vertices are emitted in non-decreasing z order.
"""
import itertools

import numpy as np
import torch
import torch.nn.functional as F
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_BINS = 32
STOP, BOS = N_BINS, N_BINS + 1
VOCAB = N_BINS + 2


def quantise(v):
    return np.clip(np.round((v + 1) / 2 * (N_BINS - 1)), 0, N_BINS - 1).astype(np.int64)


def random_mesh_vertices():
    kind = rng.integers(0, 3)
    if kind == 0:  # box
        s = rng.uniform(0.3, 1.0, 3)
        v = np.array(list(itertools.product([-1, 1], repeat=3))) * s
    elif kind == 1:  # pyramid
        s = rng.uniform(0.3, 1.0)
        v = np.array([[-s, -s, -1], [s, -s, -1], [s, s, -1], [-s, s, -1], [0, 0, 1.0]])
        v = v[:, [2, 1, 0]]
    else:  # prism
        h = rng.uniform(0.3, 1.0)
        v = np.array([[-h, -0.8, -0.7], [-h, 0.8, -0.7], [-h, 0.0, 0.8], [h, -0.8, -0.7], [h, 0.8, -0.7], [h, 0.0, 0.8]])
    q = np.unique(quantise(v), axis=0)  # (z, y, x) rows, lexicographically sorted -> z ascending
    return [BOS] + q.reshape(-1).tolist() + [STOP]


def batch(bs=16):
    seqs = [random_mesh_vertices() for _ in range(bs)]
    L = max(map(len, seqs))
    ids = torch.full((bs, L), STOP, dtype=torch.long)
    labels = torch.full((bs, L), -100, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s)
        labels[i, :len(s)] = torch.tensor(s)
    return ids, labels


def constraint_mask(seq, vocab):
    """True = forbidden. Every third token (a z coordinate) must be >= the previous vertex's z;
    STOP is only allowed at a vertex boundary."""
    mask = torch.zeros(vocab, dtype=torch.bool)
    n_coords = len(seq) - 1  # minus BOS
    if n_coords % 3 == 0:
        if n_coords >= 3:
            prev_z = seq[1 + n_coords - 3]
            mask[:prev_z] = True
    else:
        mask[STOP] = True
    mask[BOS] = True
    return mask


@torch.no_grad()
def sample(model, n_samples=4, max_len=40, temperature=0.8, top_p=0.95):
    out = []
    for _ in range(n_samples):
        seq = [BOS]
        past = None
        inp = torch.tensor([[BOS]])
        for _ in range(max_len):
            o = model(input_ids=inp, past_key_values=past, use_cache=True)
            past = o.past_key_values
            logits = o.logits[0, -1] / temperature
            logits = logits.masked_fill(constraint_mask(seq, VOCAB), -1e9)
            probs = F.softmax(logits.float(), -1)
            sorted_p, idx = probs.sort(descending=True)
            keep = sorted_p.cumsum(0) - sorted_p < top_p
            probs = torch.zeros_like(probs).scatter(0, idx[keep], sorted_p[keep])
            tok = torch.multinomial(probs / probs.sum(), 1).item()
            seq.append(tok)
            if tok == STOP:
                break
            inp = torch.tensor([[tok]])
        out.append(seq)
    return out


def main():
    cfg = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=64, n_layer=2, n_head=4, bos_token_id=BOS, eos_token_id=STOP)
    model = GPT2LMHeadModel(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    model.train()
    for step in range(60):
        ids, labels = batch()
        loss = model(input_ids=ids, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"step {step:3d} nll {loss.item():.3f}")
    model.eval().half()  # fp16 for fast sampling
    for s in sample(model):
        n = (len(s) - 2) // 3
        print(f"generated {n} vertices:", np.array(s[1:1 + 3 * n]).reshape(-1, 3).tolist()[:4], "...")


if __name__ == "__main__":
    main()
