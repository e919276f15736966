"""Binary-quantized retrieval: a RoBERTa-style embedder (bf16 for encoding) produces
passage embeddings that are binarised (sign bits, stored as uint8 0/1 to cut memory),
first-stage search by Hamming distance, then rescoring of the top-50 with float query
embeddings; recall@10 reported with NumPy."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import RobertaConfig, RobertaModel

torch.manual_seed(13)
rng = np.random.default_rng(13)
VOCAB, BOS, PAD, EOS = 900, 0, 1, 2

cfg = RobertaConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=80, pad_token_id=PAD,
                    bos_token_id=BOS, eos_token_id=EOS)
encoder = RobertaModel(cfg, add_pooling_layer=False).to(torch.bfloat16).eval()

N = 300
topics = [rng.integers(5, VOCAB, size=5).tolist() for _ in range(N)]
passages = [[BOS, *t, *rng.integers(5, VOCAB, size=int(rng.integers(8, 24))).tolist(), EOS] for t in topics]
qids = rng.choice(N, 32, replace=False)
queries = [[BOS, *topics[i][:4], EOS] for i in qids]


@torch.no_grad()
def encode(seqs, bs=64):
    out = []
    for i in range(0, len(seqs), bs):
        chunk = seqs[i:i + bs]
        L = max(map(len, chunk))
        ids = torch.tensor([s + [PAD] * (L - len(s)) for s in chunk])
        mask = (ids != PAD).long()
        h = encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(-1).to(h.dtype)
        out.append(F.normalize(((h * m).sum(1) / m.sum(1)).float(), dim=-1))
    return torch.cat(out)


doc_emb = encode(passages)
q_emb = encode(queries)

# binary quantization: 1 bit per dimension
doc_bits = (doc_emb > 0).to(torch.uint8)
q_bits = (q_emb > 0).to(torch.uint8)
print(f"binary index: {doc_bits.shape}, {doc_bits.element_size() * doc_bits.nelement() / 1024:.1f} KiB")

hamming = torch.cdist(q_bits, doc_bits, p=0)        # number of differing bits
cand = torch.topk(-hamming, k=50, dim=1).indices     # first stage
rescored = torch.einsum("qd,qkd->qk", q_emb, doc_emb[cand])
top10 = cand.gather(1, rescored.topk(10, dim=1).indices).numpy()
recall = np.mean([qids[i] in top10[i] for i in range(len(qids))])
print(f"recall@10 after rescoring: {recall:.3f}")
