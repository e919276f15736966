"""Listwise score distillation into a Qwen2-style bi-encoder: for each query a variable-size
list of candidates (padded to a fixed width) is scored by the student (dot product / tau)
and matched to a cross-encoder teacher's scores with KL(softmax(teacher) || softmax(student)).
Student forward runs under CPU fp16 autocast."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import Qwen2Config, Qwen2Model

torch.manual_seed(12)
rng = np.random.default_rng(12)
VOCAB, PAD, EOS = 600, 0, 1
MAX_C, TAU, T_TEACHER = 6, 0.05, 1.0

cfg = Qwen2Config(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, intermediate_size=128, max_position_embeddings=128,
                  pad_token_id=PAD, eos_token_id=EOS)
student = Qwen2Model(cfg)


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
    h = student(input_ids=ids, attention_mask=mask).last_hidden_state[:, -1]
    return F.normalize(h, dim=-1)


def make_batch(bsz):
    """queries, flat candidate list, validity mask [bsz, MAX_C], teacher scores (np.float32)."""
    qs, cands = [], []
    valid = np.zeros((bsz, MAX_C), dtype=bool)
    teacher = np.zeros((bsz, MAX_C), dtype=np.float32)
    for i in range(bsz):
        t = rng.integers(2, VOCAB, size=4).tolist()
        qs.append(t[:3] + [EOS])
        n = int(rng.integers(3, MAX_C + 1))           # retriever returned fewer hits for some queries
        for j in range(MAX_C):
            if j < n:
                overlap = t[: max(0, 4 - j)]
                cands.append(overlap + rng.integers(2, VOCAB, size=int(rng.integers(6, 14))).tolist() + [EOS])
                teacher[i, j] = 8.0 - 2.0 * j + rng.normal(0, 0.5)
                valid[i, j] = True
            else:
                cands.append([EOS])                   # placeholder for a missing candidate
    return qs, cands, torch.from_numpy(valid), torch.from_numpy(teacher)


opt = torch.optim.AdamW(student.parameters(), lr=2e-4)
for step in range(5):
    qs, cands, valid, teacher = make_batch(8)
    with torch.autocast("cpu", dtype=torch.float16):
        q = embed(qs)                                       # [B, H]
        d = embed(cands).view(len(qs), MAX_C, -1)           # [B, C, H]
        s_scores = torch.einsum("bh,bch->bc", q, d) / TAU
        s_scores = torch.where(valid, s_scores, -1e9)
        t_scores = torch.where(valid, teacher, -1e9)
        loss = F.kl_div(F.log_softmax(s_scores, dim=-1), F.softmax(t_scores / T_TEACHER, dim=-1),
                        reduction="batchmean")
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} kl {loss.item():.4f}")
print("distillation finished")
