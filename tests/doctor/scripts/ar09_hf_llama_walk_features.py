import numpy as np
import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM

rng = np.random.default_rng(7)
torch.manual_seed(7)

NUM_NODES = 200
WALK_LEN = 24
BOS = NUM_NODES


def build_transaction_graph():
    adj = [rng.choice(NUM_NODES, size=rng.integers(2, 8), replace=False) for _ in range(NUM_NODES)]
    volume = rng.lognormal(mean=9.0, sigma=1.5, size=NUM_NODES)
    n_tx = rng.poisson(40, size=NUM_NODES).astype(np.float64)
    age_days = rng.uniform(1, 3000, size=NUM_NODES)
    feats = np.stack([volume, n_tx, age_days, volume / (n_tx + 1)], axis=1)
    return adj, feats


def random_walks(adj, num_walks):
    walks = np.zeros((num_walks, WALK_LEN), dtype=np.int64)
    for w in range(num_walks):
        v = rng.integers(NUM_NODES)
        for t in range(WALK_LEN):
            walks[w, t] = v
            v = rng.choice(adj[v])
    return walks


class WalkLM(nn.Module):
    def __init__(self, num_feats=4, hidden=64):
        super().__init__()
        config = LlamaConfig(vocab_size=NUM_NODES + 1, hidden_size=hidden, intermediate_size=128,
                             num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                             max_position_embeddings=64, bos_token_id=BOS, eos_token_id=BOS)
        self.lm = LlamaForCausalLM(config)
        self.feat_proj = nn.Sequential(nn.Linear(num_feats, hidden), nn.LayerNorm(hidden))

    def forward(self, ids, feats):
        emb = self.lm.model.embed_tokens(ids) + self.feat_proj(feats)
        return self.lm(inputs_embeds=emb, labels=ids)


def make_batch(walks, feats, dtype):
    ids = torch.from_numpy(walks)
    f = torch.from_numpy(feats[walks]).to(dtype)
    return ids, f


def main():
    adj, feats = build_transaction_graph()
    train_walks, val_walks = random_walks(adj, 512), random_walks(adj, 128)
    model = WalkLM()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(40):
        idx = rng.choice(len(train_walks), 32, replace=False)
        ids, f = make_batch(train_walks[idx], feats, torch.float32)
        loss = model(ids, f).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 10 == 0:
            print(f"step {step:02d} train loss {loss.item():.4f}")

    model = model.half().eval()
    dtype = next(model.parameters()).dtype
    losses = []
    with torch.no_grad():
        for i in range(0, len(val_walks), 32):
            ids, f = make_batch(val_walks[i:i + 32], feats, dtype)
            losses.append(model(ids, f).loss.float().item())
    val_loss = float(np.mean(losses))
    print(f"fp16 val loss {val_loss:.4f} ppl {np.exp(val_loss):.2f}")


if __name__ == "__main__":
    main()
