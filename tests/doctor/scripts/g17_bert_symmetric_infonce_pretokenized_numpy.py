"""Symmetric InfoNCE (query->passage and passage->query) for a BERT-style bi-encoder with
CLS pooling.  The corpus is pre-tokenized once into fixed-width NumPy arrays, wrapped in a
`datasets.Dataset` and read back in torch format by a DataLoader; bf16 autocast on CPU."""
import numpy as np
import torch
import torch.nn.functional as F
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import BertConfig, BertModel

torch.manual_seed(17)
rng = np.random.default_rng(17)
VOCAB, PAD, CLS, SEP = 900, 0, 101, 102
Q_LEN, P_LEN, N = 8, 24, 128

cfg = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64, pad_token_id=PAD)
model = BertModel(cfg, add_pooling_layer=False)
logit_scale = torch.nn.Parameter(torch.tensor(np.log(20.0), dtype=torch.float32))

# ---- one-off pre-tokenization into padded arrays
q_ids = np.zeros((N, Q_LEN))
p_ids = np.zeros((N, P_LEN))
for i in range(N):
    t = rng.integers(200, VOCAB, size=4)
    q = [CLS, *t[:3], *rng.integers(200, VOCAB, size=2), SEP]
    p = [CLS, *t, *rng.integers(200, VOCAB, size=int(rng.integers(6, P_LEN - 6))), SEP]
    q_ids[i, :len(q)] = q
    p_ids[i, :len(p)] = p
ds = Dataset.from_dict({"q_ids": q_ids, "q_mask": (q_ids != PAD).astype(np.int64),
                        "p_ids": p_ids, "p_mask": (p_ids != PAD).astype(np.int64)})
ds = ds.with_format("torch")
loader = DataLoader(ds, batch_size=16, shuffle=True)


def cls_embed(ids, mask):
    out = model(input_ids=ids, attention_mask=mask).last_hidden_state[:, 0]
    return F.normalize(out.float(), dim=-1)


opt = torch.optim.AdamW([*model.parameters(), logit_scale], lr=3e-4)
for step, batch in enumerate(loader):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        q = cls_embed(batch["q_ids"], batch["q_mask"])
        p = cls_embed(batch["p_ids"], batch["p_mask"])
    logits = logit_scale.exp().clamp(max=100) * q @ p.T
    labels = torch.arange(q.size(0))
    loss = 0.5 * (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f} scale {logit_scale.exp().item():.2f}")
