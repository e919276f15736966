import os
import tempfile

import torch
import torch.nn.functional as F
from torch import nn
from transformers import Phi3Config, Phi3Model

torch.manual_seed(0)
workdir = tempfile.mkdtemp()
VOCAB, PAD = 500, 0


class AttentionPooling(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.key = nn.Linear(dim, dim)
        self.query = nn.Parameter(torch.randn(dim))

    def forward(self, hidden, mask):
        scores = self.key(hidden) @ self.query
        weights = scores.exp() * mask
        weights = weights / weights.sum(dim=1, keepdim=True)
        return torch.einsum("bl,bld->bd", weights, hidden)


class Retriever(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.backbone = Phi3Model(config)
        self.pool = AttentionPooling(config.hidden_size)

    def forward(self, input_ids):
        mask = (input_ids != PAD).to(self.pool.query.dtype)
        hidden = self.backbone(input_ids=input_ids, attention_mask=mask.long()).last_hidden_state
        return F.normalize(self.pool(hidden, mask), dim=-1)


config = Phi3Config(vocab_size=VOCAB, hidden_size=96, intermediate_size=192, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128,
                    pad_token_id=PAD, bos_token_id=1, eos_token_id=2)
model = Retriever(config)

# short in-batch-negatives training on (query, passage) pairs that share tokens
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(8):
    passages = torch.randint(3, VOCAB, (16, 40))
    queries = passages[:, torch.randperm(40)[:10]]
    sims = model(queries) @ model(passages).T / 0.05
    loss = F.cross_entropy(sims, torch.arange(16))
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 4 == 0:
        print(f"step {step}: contrastive loss {loss.item():.4f}")
torch.save(model.state_dict(), os.path.join(workdir, "retriever.pt"))

# ---- offline indexing job ----
index_model = Retriever(config)
index_model.load_state_dict(torch.load(os.path.join(workdir, "retriever.pt"), weights_only=True))
index_model = index_model.half().eval()

corpus = torch.randint(3, VOCAB, (64, 48))
corpus[::3, 30:] = PAD
with torch.no_grad():
    doc_vecs = torch.cat([index_model(corpus[i:i + 16]) for i in range(0, 64, 16)])
    query_ids = corpus[[5, 17, 42]][:, 4:16]
    q_vecs = index_model(query_ids)
    scores = (q_vecs @ doc_vecs.T).float()
top = scores.topk(3, dim=-1)
for qi, target in enumerate([5, 17, 42]):
    print(f"query for doc {target}: top docs {top.indices[qi].tolist()} scores "
          f"{[round(s, 3) for s in top.values[qi].tolist()]}")
print(f"index built: {doc_vecs.shape[0]} docs, mean self-similarity {scores.max(dim=-1).values.mean().item():.4f}")
