"""Bi-encoder (BERT-style) trained with accelerate (bf16 mixed precision on CPU) using
in-batch negatives plus a queue of recent passage embeddings; then an int8 scalar-quantized
index (per-dimension calibration) is searched with NumPy and compared to the float index."""
import numpy as np
import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader
from transformers import BertConfig, BertModel

torch.manual_seed(14)
rng = np.random.default_rng(14)
VOCAB, PAD, CLS, SEP = 900, 0, 101, 102
DIM, QSIZE, TAU = 64, 64, 0.05

cfg = BertConfig(vocab_size=VOCAB, hidden_size=DIM, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64, pad_token_id=PAD)

N = 160
topics = [rng.integers(200, VOCAB, size=4).tolist() for _ in range(N)]
passages = [[CLS, *t, *rng.integers(200, VOCAB, size=int(rng.integers(6, 18))).tolist(), SEP] for t in topics]
queries = [[CLS, *t[:3], *rng.integers(200, VOCAB, size=2).tolist(), SEP] for t in topics]


def pad(seqs):
    L = max(map(len, seqs))
    ids = torch.tensor([s + [PAD] * (L - len(s)) for s in seqs])
    return ids, (ids != PAD).long()


def collate(idx):
    return (*pad([queries[i] for i in idx]), *pad([passages[i] for i in idx]))


def encode(model, ids, mask):
    h = model(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask.unsqueeze(-1).to(h.dtype)
    return F.normalize(((h * m).sum(1) / m.sum(1).clamp(min=1)).float(), dim=-1, eps=1e-6)


accelerator = Accelerator(cpu=True, mixed_precision="bf16")
model = BertModel(cfg, add_pooling_layer=False)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = DataLoader(list(range(N)), batch_size=16, shuffle=True, collate_fn=collate)
model, opt, loader = accelerator.prepare(model, opt, loader)

queue = torch.zeros(0, DIM)
model.train()
for epoch in range(1):
    for step, (qi, qm, pi, pm) in enumerate(loader):
        with accelerator.autocast():
            q = encode(model, qi, qm)
            p = encode(model, pi, pm)
        negs = torch.cat([p, queue.to(p.dtype)]) if len(queue) else p
        logits = q @ negs.T / TAU
        loss = F.cross_entropy(logits, torch.arange(q.size(0)))
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        queue = torch.cat([p.detach().float(), queue])[:QSIZE]
        if step % 3 == 0:
            accelerator.print(f"step {step} loss {loss.item():.4f} queue {len(queue)}")

model.eval()
with torch.no_grad():
    P = torch.cat([encode(model, *pad(passages[i:i + 64])) for i in range(0, N, 64)]).numpy()
    Q = torch.cat([encode(model, *pad(queries[i:i + 64])) for i in range(0, N, 64)]).numpy()

# int8 scalar quantization, calibrated per dimension on the corpus
lo, hi = P.min(axis=0), P.max(axis=0)
scale = np.maximum(hi - lo, 1e-6) / 255.0
P_q = np.clip(np.round((P - lo) / scale) - 128, -128, 127).astype(np.int8)
P_deq = (P_q.astype(np.float32) + 128) * scale + lo


def recall_at(scores, k=10):
    top = np.argsort(-scores, axis=1)[:, :k]
    return np.mean([i in top[i] for i in range(len(top))])


print(f"float index  recall@10 {recall_at(Q @ P.T):.3f}")
print(f"int8  index  recall@10 {recall_at(Q @ P_deq.T):.3f}  ({P_q.nbytes} vs {P.nbytes} bytes)")
print(f"max dequantization error {np.abs(P_deq - P).max():.4f}")
