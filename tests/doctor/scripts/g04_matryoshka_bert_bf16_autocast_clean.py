"""Matryoshka representation learning for a BERT-style bi-encoder under CPU bf16 autocast:
InfoNCE on truncated prefixes of the embedding (64/32/16/8 dims), then recall@k / MRR
per truncation computed with NumPy."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import BertConfig, BertModel

torch.manual_seed(4)
rng = np.random.default_rng(4)
VOCAB, PAD, CLS, SEP = 900, 0, 101, 102
DIMS = [64, 32, 16, 8]
WEIGHTS = [1.0, 1.0, 1.0, 1.0]
TAU = 0.05

cfg = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64, pad_token_id=PAD)
model = BertModel(cfg, add_pooling_layer=False)

# a fixed toy corpus: each query shares "topic" tokens with exactly one passage
N = 80
topics = [rng.integers(200, VOCAB, size=4) for _ in range(N)]
queries = [[CLS, *t[:3], *rng.integers(200, VOCAB, size=2), SEP] for t in topics]
passages = [[CLS, *t, *rng.integers(200, VOCAB, size=int(rng.integers(6, 18))), SEP] for t in topics]


def pad(seqs):
    L = max(map(len, seqs))
    ids = torch.tensor([list(s) + [PAD] * (L - len(s)) for s in seqs], dtype=torch.long)
    return ids, (ids != PAD).long()


def mean_pool(h, mask):
    m = mask.unsqueeze(-1).to(h.dtype)
    return (h * m).sum(1) / m.sum(1).clamp(min=1.0)


def encode(seqs):
    ids, mask = pad(seqs)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = model(input_ids=ids, attention_mask=mask).last_hidden_state
    return mean_pool(h.float(), mask)


def matryoshka_loss(q, d):
    labels = torch.arange(q.size(0))
    total = 0.0
    for dim, w in zip(DIMS, WEIGHTS):
        qd = F.normalize(q[:, :dim], dim=-1, eps=1e-6)
        dd = F.normalize(d[:, :dim], dim=-1, eps=1e-6)
        logits = qd @ dd.T / TAU
        total = total + w * 0.5 * (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels))
    return total / sum(WEIGHTS)


opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
model.train()
for step in range(10):
    idx = rng.choice(N, 16, replace=False)
    q = encode([queries[i] for i in idx])
    d = encode([passages[i] for i in idx])
    loss = matryoshka_loss(q, d)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad()
    if step % 3 == 0:
        print(f"step {step} matryoshka loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    Q = encode(queries).numpy()
    P = encode(passages).numpy()
for dim in DIMS:
    q = Q[:, :dim] / np.linalg.norm(Q[:, :dim], axis=1, keepdims=True).clip(1e-6)
    p = P[:, :dim] / np.linalg.norm(P[:, :dim], axis=1, keepdims=True).clip(1e-6)
    order = np.argsort(-(q @ p.T), axis=1)
    rank = np.array([np.where(order[i] == i)[0][0] for i in range(N)])
    print(f"dim={dim:3d} R@1={np.mean(rank < 1):.3f} R@10={np.mean(rank < 10):.3f} MRR={np.mean(1.0 / (rank + 1)):.3f}")
