"""Qwen2-style decoder embedder (last-token pooling, left padding) distilled from teacher
scores with a masked listwise KL under bf16 autocast; the corpus embeddings are cached to a
safetensors file in bf16, reloaded, and searched both exactly and through a product-
quantization (PQ) index with asymmetric distance computation."""
import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from transformers import Qwen2Config, Qwen2Model

torch.manual_seed(18)
rng = np.random.default_rng(18)
VOCAB, PAD, EOS = 600, 0, 1
MAX_C, TAU = 5, 0.05
M_SUB, K_CODE = 8, 16          # 8 sub-spaces of 8 dims, 16 centroids each

cfg = Qwen2Config(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, intermediate_size=128, max_position_embeddings=128,
                  pad_token_id=PAD, eos_token_id=EOS)
model = Qwen2Model(cfg)


def left_pad(seqs):
    L = max(map(len, seqs))
    ids = torch.full((len(seqs), L), PAD)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(seqs):
        ids[i, L - len(s):] = torch.tensor(s)
        mask[i, L - len(s):] = 1
    return ids, mask


def embed(seqs):
    ids, mask = left_pad(seqs)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = model(input_ids=ids, attention_mask=mask).last_hidden_state[:, -1]
    return F.normalize(h.float(), dim=-1, eps=1e-6)


N = 150
topics = [rng.integers(2, VOCAB, size=4).tolist() for _ in range(N)]
corpus = [t + rng.integers(2, VOCAB, size=int(rng.integers(6, 16))).tolist() + [EOS] for t in topics]
queries = [t[:3] + [EOS] for t in topics]

# ---- listwise distillation (variable-length candidate lists, masked)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(5):
    qi = rng.choice(N, 8, replace=False)
    cands, valid, teacher = [], torch.zeros(8, MAX_C, dtype=torch.bool), torch.zeros(8, MAX_C)
    for b, i in enumerate(qi):
        n = int(rng.integers(2, MAX_C + 1))
        others = rng.choice(N, MAX_C, replace=False)
        for j in range(MAX_C):
            cands.append(corpus[i] if j == 0 else corpus[others[j]])
            valid[b, j] = j < n
            teacher[b, j] = 6.0 if j == 0 else float(rng.normal(0, 1))
    q = embed([queries[i] for i in qi])
    d = embed(cands).view(8, MAX_C, -1)
    s = torch.einsum("bh,bch->bc", q, d) / TAU
    neg = torch.finfo(s.dtype).min
    log_p_student = F.log_softmax(s.masked_fill(~valid, neg), dim=-1)
    p_teacher = F.softmax(teacher.masked_fill(~valid, neg), dim=-1)
    kl = (p_teacher * (torch.log(p_teacher.clamp_min(1e-12)) - log_p_student)).masked_fill(~valid, 0.0)
    loss = kl.sum(-1).mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad()
    print(f"distill step {step} kl {loss.item():.4f}")

# ---- encode corpus, cache to disk in bf16, reload for search
model.eval()
with torch.no_grad(), tempfile.TemporaryDirectory() as tmp:
    doc = torch.cat([embed(corpus[i:i + 50]) for i in range(0, N, 50)])
    path = os.path.join(tmp, "corpus.safetensors")
    save_file({"emb": doc.to(torch.bfloat16).contiguous()}, path)
    index = load_file(path)["emb"].float()
    qe = torch.cat([embed(queries[i:i + 50]) for i in range(0, N, 50)])

    exact_top = torch.topk(qe @ index.T, k=10, dim=1).indices

    # ---- product quantization: k-means per sub-space
    sub = index.view(N, M_SUB, -1)                          # [N, M, 8]
    codebooks = torch.empty(M_SUB, K_CODE, sub.size(-1))
    codes = torch.empty(N, M_SUB, dtype=torch.uint8)
    for m in range(M_SUB):
        x = sub[:, m]
        c = x[torch.from_numpy(rng.choice(N, K_CODE, replace=False))].clone()
        for _ in range(10):
            assign = torch.cdist(x, c).argmin(dim=1)
            sums = torch.zeros_like(c).index_add_(0, assign, x)
            counts = torch.bincount(assign, minlength=K_CODE).unsqueeze(1).to(x.dtype)
            c = torch.where(counts > 0, sums / counts.clamp(min=1), c)
        codebooks[m] = c
        codes[:, m] = torch.cdist(x, c).argmin(dim=1).to(torch.uint8)

    # asymmetric distance: per-query lookup table of inner products with every centroid
    lut = torch.einsum("qmd,mkd->qmk", qe.view(N, M_SUB, -1), codebooks)     # [Q, M, K]
    pq_scores = lut.gather(2, codes.long().T.unsqueeze(0).expand(N, -1, -1)).sum(1)
    pq_top = torch.topk(pq_scores, k=10, dim=1).indices

exact = exact_top.numpy(); pq = pq_top.numpy()
print(f"exact recall@10 {np.mean([i in exact[i] for i in range(N)]):.3f}")
print(f"PQ    recall@10 {np.mean([i in pq[i] for i in range(N)]):.3f}  "
      f"(codes {codes.numel()} bytes vs {index.numel() * 2} bytes bf16)")
