"""Index a passage collection with a BERT-style bi-encoder converted to fp16 for fast
encoding.  Mean pooling over content tokens only (special tokens excluded), sentence-
transformers style, then brute-force search and recall@k with NumPy."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import BertConfig, BertModel

torch.manual_seed(5)
rng = np.random.default_rng(5)
VOCAB, PAD, CLS, SEP = 1000, 0, 101, 102

cfg = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64, pad_token_id=PAD)
model = BertModel(cfg, add_pooling_layer=False)


def tokenize(tokens, max_len=40):
    return [CLS, *tokens[: max_len - 2], SEP]


# corpus scraped from a CMS: a few records have an empty body
N = 120
topics = [rng.integers(200, VOCAB, size=4).tolist() for _ in range(N)]
corpus = []
for i, t in enumerate(topics):
    body = [] if i % 37 == 11 else t + rng.integers(200, VOCAB, size=int(rng.integers(5, 20))).tolist()
    corpus.append(tokenize(body))
queries = [tokenize(t[:3] + rng.integers(200, VOCAB, size=2).tolist()) for t in topics]


def batchify(seqs):
    L = max(map(len, seqs))
    ids = torch.tensor([s + [PAD] * (L - len(s)) for s in seqs])
    return ids, (ids != PAD).long()


def mean_pooling(token_embeddings, input_ids, attention_mask):
    content = attention_mask * (input_ids != CLS) * (input_ids != SEP)
    mask = content.unsqueeze(-1).expand(token_embeddings.size()).to(token_embeddings.dtype)
    summed = torch.sum(token_embeddings * mask, 1)
    counts = torch.clamp(mask.sum(1), min=1e-9)
    return summed / counts


# short warm-up fine-tune in fp32
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(4):
    idx = rng.choice(N, 16, replace=False)
    keep = [i for i in idx if len(corpus[i]) > 2]  # training pairs need a non-empty passage
    qi, qm = batchify([queries[i] for i in keep])
    di, dm = batchify([corpus[i] for i in keep])
    q = F.normalize(mean_pooling(model(input_ids=qi, attention_mask=qm).last_hidden_state, qi, qm), dim=-1)
    d = F.normalize(mean_pooling(model(input_ids=di, attention_mask=dm).last_hidden_state, di, dm), dim=-1)
    loss = F.cross_entropy(q @ d.T / 0.05, torch.arange(len(keep)))
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"warm-up step {step} loss {loss.item():.4f}")

# indexing: halve the model for throughput
model = model.half().eval()


@torch.inference_mode()
def encode(seqs, bs=32):
    out = []
    for i in range(0, len(seqs), bs):
        ids, mask = batchify(seqs[i:i + bs])
        h = model(input_ids=ids, attention_mask=mask).last_hidden_state
        out.append(F.normalize(mean_pooling(h, ids, mask), p=2, dim=1))
    return torch.cat(out).float().numpy()


doc_emb = encode(corpus)
q_emb = encode(queries)
scores = q_emb @ doc_emb.T
top10 = np.argsort(-scores, axis=1)[:, :10]
recall10 = np.mean([i in top10[i] for i in range(N)])
print(f"indexed {doc_emb.shape[0]} passages, dim {doc_emb.shape[1]}")
print(f"recall@10 = {recall10:.3f}")
