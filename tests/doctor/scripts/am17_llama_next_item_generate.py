import numpy as np
import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaModel

torch.manual_seed(0)
rng = np.random.default_rng(17)

N_ITEMS, CTX, D = 600, 16, 64
BOS = 0


def playlists(n=800):
    out = []
    for _ in range(n):
        genre = int(rng.integers(0, 12))
        walk = genre * 50 + 1 + (np.cumsum(rng.integers(1, 4, CTX)) % 49)
        out.append(np.concatenate([[BOS], walk]))
    return torch.tensor(np.stack(out))


def score_items(hidden, item_table, temperature=0.5):
    return hidden @ item_table.T / temperature


config = LlamaConfig(vocab_size=N_ITEMS, hidden_size=D, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                     bos_token_id=BOS, eos_token_id=None, pad_token_id=None)
model = LlamaModel(config)
data = playlists()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

for epoch in range(3):
    perm = torch.randperm(len(data))
    for s in range(0, len(data), 64):
        batch = data[perm[s:s + 64]]
        h = model(input_ids=batch[:, :-1]).last_hidden_state
        table = model.embed_tokens.weight
        logits = score_items(h.reshape(-1, D), table)
        loss = F.cross_entropy(logits, batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} next-item loss {loss.item():.4f}")


@torch.no_grad()
def recommend(model, history, k=5, top_share=0.02):
    seq = history.clone()
    table = model.embed_tokens.weight
    recs = []
    for _ in range(k):
        h = model(input_ids=seq).last_hidden_state[:, -1]
        scores = score_items(h, table)
        scores.scatter_(1, seq, float("-inf"))
        cutoff = torch.quantile(scores, 1 - top_share, dim=-1, keepdim=True)
        scores = scores.masked_fill(scores < cutoff, float("-inf"))
        nxt = torch.multinomial(scores.softmax(-1), 1)
        recs.append(nxt)
        seq = torch.cat([seq, nxt], dim=1)
    return torch.cat(recs, dim=1)


serving = model.half().eval()
history = data[:8, :9]
recs = recommend(serving, history)
for row, rec in zip(history[:4].tolist(), recs[:4].tolist()):
    print("history", row[1:], "->", rec)
same_genre = ((recs - 1) // 50 == ((history[:, 1:2] - 1) // 50)).float().mean()
print(f"share of recommendations in the listener's genre: {same_genre.item():.3f}")
